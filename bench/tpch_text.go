package bench

import (
	"math/rand/v2"
	"strings"
)

// The TPC-H specification's comment text (clause 4.2.2.14): sentences of a
// small grammar over weighted word lists, written once into a pool from
// which each comment is a random substring. Q13 and Q16 filter on words of
// it ('%special%requests%', '%Customer%Complaints%'), so the lists keep the
// specification's words and their weights roughly.

// weighted is a word list; each word appears weight times in pick's draw.
type weighted struct {
	words []string
	total int
	cum   []int
}

// newWeighted reads "word:weight" entries ("word" alone weighs 1).
func newWeighted(entries ...string) weighted {
	var w weighted
	for _, e := range entries {
		word, n := e, 1
		if i := strings.LastIndexByte(e, ':'); i > 0 {
			word, n = e[:i], atoiOr1(e[i+1:])
		}
		w.total += n
		w.words = append(w.words, word)
		w.cum = append(w.cum, w.total)
	}
	return w
}

func atoiOr1(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return max(n, 1)
}

func (w weighted) pick(r *rand.Rand) string {
	x := r.IntN(w.total)
	for i, c := range w.cum {
		if x < c {
			return w.words[i]
		}
	}
	return w.words[len(w.words)-1]
}

var (
	tpchNouns = newWeighted("foxes:50", "ideas:50", "theodolites:50", "pinto beans:50", "instructions:50",
		"dependencies:50", "excuses:50", "platelets:50", "asymptotes:50", "courts:50", "dolphins:50",
		"multipliers", "sauternes", "warthogs", "frets", "dinos", "attainments", "somas", "Tiresias",
		"patterns", "forges", "braids", "frays", "warhorses", "dugouts", "notornis", "epitaphs", "pearls",
		"tithes", "waters", "orbits", "gifts", "sheaves", "depths", "sentiments", "decoys", "realms", "pains",
		"grouches", "escapades", "hockey players", "packages:40", "requests:40", "accounts:40", "deposits:40")
	tpchVerbs = newWeighted("sleep:20", "wake:20", "are:20", "cajole:20", "haggle:20", "nag:10", "use:10",
		"boost:10", "affix:5", "detect:5", "integrate:5", "maintain", "nod", "was", "lose", "sublate", "solve",
		"thrash", "promise", "engage", "hinder", "print", "x-ray", "breach", "eat", "grow", "impress", "mold",
		"poach", "serve", "run", "dazzle", "snooze", "doze", "unwind", "kindle", "play", "hang", "believe", "doubt")
	tpchAdjectives = newWeighted("special:20", "pending:20", "unusual:20", "express:20", "furious", "sly",
		"careful", "blithe", "quick", "fluffy", "slow", "quiet", "ruthless", "thin", "close", "dogged",
		"daring", "brave", "stealthy", "permanent", "enticing", "idle", "busy", "regular:50", "final:40",
		"ironic:40", "even:30", "bold:20", "silent:10")
	tpchAdverbs = newWeighted("sometimes", "always", "never", "furiously:50", "slyly:50", "carefully:50",
		"blithely:40", "quickly:30", "fluffily:20", "slowly", "quietly", "ruthlessly", "thinly", "closely",
		"doggedly", "daringly", "bravely", "stealthily", "permanently", "enticingly", "idly", "busily",
		"regularly", "finally", "ironically", "evenly", "boldly", "silently")
	tpchPrepositions = newWeighted("about:50", "above:50", "according to:50", "across:50", "after:50",
		"against:40", "along:40", "alongside of:30", "among:30", "around:20", "at:10", "atop", "before",
		"behind", "beneath", "beside", "besides", "between", "beyond", "by", "despite", "during", "except",
		"for", "from", "in place of", "inside", "instead of", "into", "near", "of", "on", "outside", "over",
		"past", "since", "through", "throughout", "to", "toward", "under", "until", "up", "upon", "without",
		"with", "within")
	tpchAuxiliaries = newWeighted("do", "may", "might", "shall", "will", "would", "can", "could", "should",
		"ought to", "must", "will have to", "shall have to", "could have to", "should have to",
		"must have to", "need to", "try to")
	tpchTerminators = newWeighted(".:50", ";", ":", "?", "!", "--")
)

// tpchTextPool is the text comments are cut from; the specification's is
// 300 MB, a few MB give the same words in the same proportions.
func tpchTextPool(r *rand.Rand, size int) string {
	var sb strings.Builder
	sb.Grow(size + 200)
	for sb.Len() < size {
		sb.WriteString(tpchSentence(r))
		sb.WriteByte(' ')
	}
	return sb.String()[:size]
}

func tpchSentence(r *rand.Rand) string {
	var parts []string
	switch r.IntN(5) {
	case 0:
		parts = []string{nounPhrase(r), verbPhrase(r)}
	case 1:
		parts = []string{nounPhrase(r), verbPhrase(r), prepPhrase(r)}
	case 2:
		parts = []string{nounPhrase(r), verbPhrase(r), nounPhrase(r)}
	case 3:
		parts = []string{nounPhrase(r), prepPhrase(r), verbPhrase(r), nounPhrase(r)}
	default:
		parts = []string{nounPhrase(r), prepPhrase(r), verbPhrase(r), prepPhrase(r)}
	}
	return strings.Join(parts, " ") + tpchTerminators.pick(r)
}

func nounPhrase(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return tpchNouns.pick(r)
	case 1:
		return tpchAdjectives.pick(r) + " " + tpchNouns.pick(r)
	case 2:
		return tpchAdjectives.pick(r) + ", " + tpchAdjectives.pick(r) + " " + tpchNouns.pick(r)
	default:
		return tpchAdverbs.pick(r) + " " + tpchAdjectives.pick(r) + " " + tpchNouns.pick(r)
	}
}

func verbPhrase(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return tpchVerbs.pick(r)
	case 1:
		return tpchAuxiliaries.pick(r) + " " + tpchVerbs.pick(r)
	case 2:
		return tpchVerbs.pick(r) + " " + tpchAdverbs.pick(r)
	default:
		return tpchAuxiliaries.pick(r) + " " + tpchVerbs.pick(r) + " " + tpchAdverbs.pick(r)
	}
}

func prepPhrase(r *rand.Rand) string {
	return tpchPrepositions.pick(r) + " the " + nounPhrase(r)
}

// The distributions of clause 4.2.2.13 and 4.2.3.
var (
	tpchColors = strings.Fields("almond antique aquamarine azure beige bisque black blanched blue blush " +
		"brown burlywood burnished chartreuse chiffon chocolate coral cornflower cornsilk cream cyan dark " +
		"deep dim dodger drab firebrick floral forest frosted gainsboro ghost goldenrod green grey honeydew " +
		"hot indian ivory khaki lace lavender lawn lemon light lime linen magenta maroon medium metallic " +
		"midnight mint misty moccasin navajo navy olive orange orchid pale papaya peach peru pink plum " +
		"powder puff purple red rose rosy royal saddle salmon sandy seashell sienna sky slate smoke snow " +
		"spring steel tan thistle tomato turquoise violet wheat white yellow")
	tpchTypeSyl1      = []string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"}
	tpchTypeSyl2      = []string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"}
	tpchTypeSyl3      = []string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"}
	tpchContainerSyl1 = []string{"SM", "LG", "MED", "JUMBO", "WRAP"}
	tpchContainerSyl2 = []string{"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"}
	tpchSegments      = []string{"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"}
	tpchPriorities    = []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
	tpchInstructions  = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	tpchShipModes     = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	tpchRegions       = []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}
)

// tpchNations are the 25 nations and their regions (clause 4.2.3).
var tpchNations = []struct {
	name   string
	region int
}{
	{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4}, {"ETHIOPIA", 0},
	{"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2}, {"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2},
	{"JORDAN", 4}, {"KENYA", 0}, {"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2},
	{"ROMANIA", 3}, {"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3},
	{"UNITED STATES", 1},
}
