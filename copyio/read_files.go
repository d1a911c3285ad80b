package copyio

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// Files opens the files of read_csv and read_parquet for the session
// behind a port, within the directories it may read.
type Files struct{ Port Port }

var _ plan.FileReader = Files{}

func (f Files) OpenFiles(ctx context.Context, call plan.FileCall) (plan.FileRelation, error) {
	paths, err := readablePaths(f.Port.FileReadRoots(), call.Function, call.Path)
	if err != nil {
		return nil, err
	}
	switch call.Function {
	case "read_parquet", "parquet_scan":
		return openParquetFiles(call, paths, f.Port.BatchSize())
	}
	return openCSVFiles(ctx, call, paths, f.Port.InputStyle(), f.Port.BatchSize())
}

// readablePaths expands pattern (a path or a glob, relative to the
// server's working directory) to the files it names, each of which must
// lie, symbolic links resolved, under one of the directories readRoots.
func readablePaths(readRoots []string, fn, pattern string) ([]string, error) {
	roots := resolvedRoots(readRoots)
	if len(roots) == 0 {
		return nil, &pgerr.Error{Code: pgerr.InsufficientPrivilege,
			Message: fmt.Sprintf("permission denied to read files with %s", fn), Hint: readRootsHint}
	}
	abs, err := filepath.Abs(pattern)
	if err != nil {
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid file path %q", pattern)
	}
	matches := []string{abs}
	if strings.ContainsAny(pattern, "*?[") {
		if matches, err = filepath.Glob(abs); err != nil {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid file pattern %q", pattern)
		}
		matches = regularFiles(matches)
		if len(matches) == 0 {
			return nil, pgerr.Errorf(pgerr.UndefinedFile, "no file matches %q", pattern)
		}
	}
	for i, m := range matches {
		if matches[i], err = checkReadable(m, roots); err != nil {
			return nil, err
		}
	}
	return matches, nil
}

// regularFiles drops what a glob matched that is not a file (directories).
func regularFiles(paths []string) []string {
	out := paths[:0]
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

const readRootsHint = "The server reads files only under the directories given with serve --allow-file-read DIR."

// resolvedRoots are the readable directories with symbolic links resolved;
// one that cannot be resolved admits nothing.
func resolvedRoots(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// checkReadable resolves path and checks it against the resolved roots.
func checkReadable(path string, roots []string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", pgerr.Errorf(pgerr.UndefinedFile, "could not open file %q for reading: No such file or directory", path)
		}
		return "", pgerr.Errorf(pgerr.IOError, "could not open file %q for reading: %v", path, errors.Unwrap(err))
	}
	if st, err := os.Stat(real); err == nil && st.IsDir() {
		return "", pgerr.Errorf(pgerr.WrongObjectType, "%q is a directory", path)
	}
	for _, r := range roots {
		if rel, err := filepath.Rel(r, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return real, nil
		}
	}
	return "", &pgerr.Error{Code: pgerr.InsufficientPrivilege,
		Message: fmt.Sprintf("permission denied to read file %q", path), Hint: readRootsHint}
}

// parquetRelation is read_parquet's files.
type parquetRelation struct {
	files *lake.ParquetFiles
	cols  []sql.Column
	fn    string
}

func openParquetFiles(call plan.FileCall, paths []string, batch int) (plan.FileRelation, error) {
	for name := range call.Options {
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "%s has no option %q", call.Function, name)
	}
	files, err := lake.OpenParquetFiles(paths, batch)
	if err != nil {
		return nil, pgerr.Errorf(pgerr.BadCopyFileFormat, "%s: %v", call.Function, err)
	}
	rel := &parquetRelation{files: files, fn: call.Function}
	for _, f := range files.Schema().Fields() {
		rel.cols = append(rel.cols, sql.Column{Name: f.Name, Type: sql.TypeFromArrow(f.Type)})
	}
	return rel, nil
}

func (r *parquetRelation) Columns() []sql.Column { return r.cols }

func (r *parquetRelation) Batches(ctx context.Context, cols []int) (iter.Seq2[arrow.RecordBatch, error], error) {
	seq := r.files.Batches(ctx, cols)
	return func(yield func(arrow.RecordBatch, error) bool) {
		for b, err := range seq {
			if err != nil {
				if ctx.Err() != nil {
					err = pgerr.Canceled(ctx.Err())
				} else {
					err = pgerr.Errorf(pgerr.BadCopyFileFormat, "%s: %v", r.fn, err)
				}
			}
			if !yield(b, err) || err != nil {
				return
			}
		}
	}, nil
}
