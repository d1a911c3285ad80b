-- The magmalake demo data set: fifteen-odd members of Marvel's X-Men.
-- birth_year is NULL wherever the comics never settled on one.
-- Two INSERTs, so the table starts with two snapshots (two appends).
CREATE SCHEMA IF NOT EXISTS xmen;

CREATE TABLE IF NOT EXISTS xmen.characters (
    id         bigint,
    name       text,
    alias      text,
    powers     text,
    birth_year int,
    active     boolean
) PARTITIONED BY (active);

-- The original five (1963) with their founder and first adversary.
INSERT INTO xmen.characters (id, name, alias, powers, birth_year, active) VALUES
    (1, 'Charles Xavier', 'Professor X', 'telepathy', NULL, true),
    (2, 'Scott Summers', 'Cyclops', 'optic blasts', NULL, true),
    (3, 'Jean Grey', 'Marvel Girl', 'telepathy, telekinesis', NULL, true),
    (4, 'Hank McCoy', 'Beast', 'superhuman strength and agility, genius intellect', NULL, true),
    (5, 'Bobby Drake', 'Iceman', 'ice generation, organic ice form', NULL, true),
    (6, 'Warren Worthington III', 'Angel', 'feathered wings, flight', NULL, false),
    (7, 'Erik Lehnsherr', 'Magneto', 'magnetism', NULL, false);

-- Giant-Size X-Men #1 (1975) and later recruits.
INSERT INTO xmen.characters (id, name, alias, powers, birth_year, active) VALUES
    (8, 'Ororo Munroe', 'Storm', 'weather manipulation', NULL, true),
    (9, 'James Howlett', 'Wolverine', 'healing factor, adamantium claws, heightened senses', 1882, true),
    (10, 'Kurt Wagner', 'Nightcrawler', 'teleportation', NULL, true),
    (11, 'Piotr Rasputin', 'Colossus', 'organic steel form', NULL, true),
    (12, 'Sean Cassidy', 'Banshee', 'sonic scream', NULL, false),
    (13, 'John Proudstar', 'Thunderbird', 'superhuman strength, speed and stamina', NULL, false),
    (14, 'Kitty Pryde', 'Shadowcat', 'phasing', NULL, true),
    (15, 'Anna Marie', 'Rogue', 'absorbs powers and memories by touch', NULL, true),
    (16, 'Remy LeBeau', 'Gambit', 'kinetic energy charging', NULL, true),
    (17, 'Jubilation Lee', 'Jubilee', 'pyrotechnic energy plasmoids', NULL, false);
