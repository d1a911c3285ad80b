// Package theta is Apache DataSketches' Theta sketch, as far as Iceberg's
// table statistics need it: an update sketch counting the distinct values
// fed to it (QuickSelect, the library's default family), its estimate, and
// the compact form's serialization (serial version 3), which Iceberg
// stores in Puffin blobs of type apache-datasketches-theta-v1 and which
// Spark and Trino read.
//
// The hash, the seed, the table's growth and rebuild points follow the
// library, so that the same stream of values gives the same bytes as the
// Java and C++ libraries (the tests compare with files they wrote).
package theta
