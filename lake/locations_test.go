package lake

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAllowedLocation(t *testing.T) {
	roots := locationRoots("file:///lake/wh", []string{"s3://bucket/extra", "/srv/allowed"})
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		v  string
		ok bool
	}{
		{"/lake/wh", true},
		{"/lake/wh/ns.db/t/data", true},
		{"file:///lake/wh/ns.db/t", true},
		{"file://localhost/lake/wh/x", true},
		{"FILE:///lake/wh/x", true},
		{"/lake/wh/a/../b", true},
		{"s3://bucket/extra/t/data", true},
		{"S3://BUCKET/extra/t", true},
		{"/srv/allowed/t", true},
		{"/lake/wh/../other", false},
		{"/lake/wh2/x", false},
		{"/lake", false},
		{"/srv/allowed-not", false},
		{"s3://bucket/extras", false},
		{"s3://other/extra", false},
		{"s3a://bucket/extra/t", false},
		{"gs://bucket/extra/t", false},
		{"file://host/lake/wh/x", false},
		{"file://user@/lake/wh/x", false},
		{"file:lake/wh", false},
		{"/lake/wh/%2e%2e/x", false},
		{"/lake/wh/x?/../../y", false},
		{"/lake/wh/x#y", false},
		{`/lake/wh\..\x`, false},
		{"/lake/wh/x\n", false},
		{"", false},
		{"relative/dir", false},
		{filepath.Join(cwd, "x"), false},
	}
	for _, c := range cases {
		if got := allowedLocation(c.v, roots); got != c.ok {
			t.Errorf("allowedLocation(%q) = %t, want %t", c.v, got, c.ok)
		}
	}
	// A relative warehouse resolves against the working directory, as the
	// files it names do.
	rel := locationRoots("wh", nil)
	if !allowedLocation(filepath.Join(cwd, "wh", "t"), rel) || !allowedLocation("wh/t", rel) || allowedLocation("wh/../t", rel) {
		t.Errorf("relative warehouse roots %v", rel)
	}
	// A REST catalog's warehouse name is not a location.
	if got := locationRoots(externalWarehouse("my_catalog"), nil); len(got) != 0 {
		t.Errorf("warehouse name gave roots %v", got)
	}
}

func TestLocationProperties(t *testing.T) {
	for k, want := range map[string]bool{
		"location": true, "write.data.path": true, "write.metadata.path": true,
		"write.object-storage.path": true, "write.folder-storage.path": true,
		"Write.Data.Path": true, "write.metadata.location": true, "some.catalog.uri": true,
		"format-version": false, "write.delete.mode": false, "write.object-storage.enabled": false,
		"write.metadata.compression-codec": false,
	} {
		if got := isLocationProperty(k); got != want {
			t.Errorf("isLocationProperty(%q) = %t, want %t", k, got, want)
		}
	}
}
