package testenv

import (
	"os"
	"testing"
)

// ReadFile is the text of the file at path; a file that cannot be read
// fails the test.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
