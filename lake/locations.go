package lake

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// ErrLocationNotAllowed is wrapped by every LocationError: a table property
// names a place outside the warehouse and the operator's allowed prefixes.
var ErrLocationNotAllowed = errors.New("location outside the warehouse")

// LocationError is a table property whose location the server refuses to
// write to. Clients choose table properties, so without this check any
// client could make the server write files wherever its OS user may.
type LocationError struct {
	Property string
	Value    string
}

func (e *LocationError) Error() string {
	return fmt.Sprintf("table property %q names %q, which is not under the warehouse location or a path the server allows", e.Property, e.Value)
}

func (e *LocationError) Unwrap() error { return ErrLocationNotAllowed }

// location is a parsed, cleaned place files can go: a bare local path is
// scheme "file" with no host, like file:///path.
type location struct {
	scheme, host, path string
}

// parseLocation reads s the way iceberg-go's file IO will use it, or
// refuses it. Escapes, queries, fragments and backslashes are refused rather
// than interpreted, since this check and the IO could read them differently.
func parseLocation(s string) (location, error) {
	if s == "" || strings.ContainsAny(s, "%?#\\") || strings.ContainsFunc(s, isControl) {
		return location{}, errors.New("not a plain path or URI")
	}
	colon, slash := strings.IndexByte(s, ':'), strings.IndexByte(s, '/')
	if colon < 0 || (slash >= 0 && slash < colon) {
		return localLocation(s)
	}
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || u.User != nil || u.Scheme == "" {
		return location{}, errors.New("not a plain path or URI")
	}
	l := location{scheme: strings.ToLower(u.Scheme), host: strings.ToLower(u.Host), path: path.Clean("/" + u.Path)}
	if l.scheme == "file" && l.host == "localhost" {
		l.host = ""
	}
	return l, nil
}

// localLocation resolves a relative path against the working directory, as
// the operating system will when a file is created there.
func localLocation(s string) (location, error) {
	abs, err := filepath.Abs(s)
	if err != nil {
		return location{}, err
	}
	return location{scheme: "file", path: path.Clean(filepath.ToSlash(abs))}, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// under reports whether l is root or inside it, after cleaning: ".." cannot
// climb out, and another scheme or bucket is never inside.
func (l location) under(root location) bool {
	if l.scheme != root.scheme || l.host != root.host {
		return false
	}
	return root.path == "/" || l.path == root.path || strings.HasPrefix(l.path, root.path+"/")
}

// CheckAllowPath validates an operator's --allow-path prefix.
func CheckAllowPath(s string) error {
	_, err := parseLocation(s)
	return err
}

// locationRoots are the places table files may go: the warehouse, when it
// is a location, and the operator's allowed prefixes (validated at start).
func locationRoots(warehouse string, allow []string) []location {
	var roots []location
	if l, err := parseLocation(warehouse); err == nil {
		roots = append(roots, l)
	}
	for _, a := range allow {
		if l, err := parseLocation(a); err == nil {
			roots = append(roots, l)
		}
	}
	return roots
}

// externalWarehouse is an external catalog's warehouse setting when it is a
// location: a REST catalog's warehouse is often just a name, which must not
// be read as a path relative to the working directory.
func externalWarehouse(s string) string {
	if isLocation(s) {
		return s
	}
	return ""
}

// isLocation tells a warehouse location from a warehouse name: a URI with a
// scheme, or an absolute path.
func isLocation(s string) bool {
	return strings.Contains(s, "://") || strings.HasPrefix(s, "file:") || filepath.IsAbs(s)
}

// isLocationProperty reports whether a table property names where files go:
// Iceberg's location, write.data.path, write.metadata.path,
// write.object-storage.path, write.folder-storage.path and any other
// *.path, *.location or *.uri key, since other engines sharing the catalog
// may honour keys iceberg-go ignores.
func isLocationProperty(key string) bool {
	k := strings.ToLower(strings.TrimSpace(key))
	return k == "location" || strings.HasSuffix(k, ".path") || strings.HasSuffix(k, ".location") || strings.HasSuffix(k, ".uri")
}

// checkLocations refuses the first location-valued property of props (in
// key order, so the error is stable) that is not under one of roots.
func checkLocations(props map[string]string, roots []location) error {
	keys := make([]string, 0, len(props))
	for k := range props {
		if isLocationProperty(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !allowedLocation(props[k], roots) {
			return &LocationError{Property: k, Value: props[k]}
		}
	}
	return nil
}

func allowedLocation(s string, roots []location) bool {
	l, err := parseLocation(s)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(roots, l.under)
}
