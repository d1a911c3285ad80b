package lake

import (
	"errors"
	"fmt"

	"github.com/apache/iceberg-go/catalog"
)

// Sentinels callers match with errors.Is. Each one that has a catalog
// counterpart wraps it too, so errors.Is(err, catalog.ErrNoSuchTable) holds.
var (
	ErrNoSuchTable       = errors.New("table does not exist")
	ErrNoSuchNamespace   = errors.New("namespace does not exist")
	ErrTableExists       = errors.New("table already exists")
	ErrNamespaceExists   = errors.New("namespace already exists")
	ErrNamespaceNotEmpty = errors.New("namespace is not empty")
	ErrCorruptMetadata   = errors.New("table metadata is unreadable")
	ErrInvalidTransform  = errors.New("invalid partition transform")
	ErrUnsupportedSpec   = errors.New("unsupported partitioning")
	ErrFormatDowngrade   = errors.New("format-version cannot be downgraded")
	ErrInvalidProperty   = errors.New("invalid table property")
	ErrNoSnapshotAsOf    = errors.New("no snapshot at or before the requested time")
	ErrNoSuchSnapshot    = errors.New("snapshot does not exist")
)

// catalogSentinels pairs each catalog error with the sentinel it maps to.
var catalogSentinels = []struct{ from, to error }{
	{catalog.ErrNoSuchTable, ErrNoSuchTable},
	{catalog.ErrNoSuchNamespace, ErrNoSuchNamespace},
	{catalog.ErrTableAlreadyExists, ErrTableExists},
	{catalog.ErrNamespaceAlreadyExists, ErrNamespaceExists},
	{catalog.ErrNamespaceNotEmpty, ErrNamespaceNotEmpty},
}

// sentinelError carries both our sentinel and the catalog's original error so
// errors.Is finds either, while the message stays the caller's context.
type sentinelError struct {
	sentinel error
	msg      string
	cause    error
}

func (e *sentinelError) Error() string   { return e.msg }
func (e *sentinelError) Unwrap() []error { return []error{e.sentinel, e.cause} }

// mapCatalogErr wraps err with the sentinel matching the catalog error it
// carries, prefixing what (e.g. "load table public.t"). Errors with no
// matching sentinel are wrapped with context only.
func mapCatalogErr(what string, err error) error {
	if err == nil {
		return nil
	}
	for _, m := range catalogSentinels {
		if errors.Is(err, m.from) {
			return &sentinelError{sentinel: m.to, msg: fmt.Sprintf("%s: %v", what, m.to), cause: err}
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}
