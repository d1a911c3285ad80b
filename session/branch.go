package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// Writing to a branch (write-audit-publish): with SET magmalake.branch =
// 'b' every statement reads and writes each table as its branch b sees it.
// A table that has no branch b reads as main, and the first write creates
// b from main's head, as Iceberg's Java library does for a write to a
// missing branch. main is untouched until someone publishes b with
// ALTER TABLE t EXECUTE fast_forward('main', 'b') (or cherrypick_snapshot).
// Maintenance (rollback, expiry, VACUUM, ref changes) and DDL act on the
// table itself, not on the branch.

const branchSetting = "magmalake.branch"

// branch is the branch this session's statements target; "" is main.
func (s *Settings) branch() string {
	v, _ := s.Get(branchSetting)
	if lake.IsMain(v) {
		return ""
	}
	return v
}

// checkBranchName is the setting's check: a branch is named by any text
// but the empty one, whose meaning (main) DEFAULT already gives.
func checkBranchName(v string) (string, error) {
	if strings.TrimSpace(v) != v {
		return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\": a branch name has no leading or trailing spaces", branchSetting, v)
	}
	return v, nil
}

// checkBranchChange refuses to move a transaction block that already read
// or wrote a table to another branch: its pinned heads and staged changes
// belong to the branch it started on.
func (b *txBlock) checkBranchChange(name, value string) error {
	if !strings.EqualFold(name, branchSetting) || !b.active || len(b.tables) == 0 {
		return nil
	}
	if lake.IsMain(value) && b.branch == "" || value == b.branch {
		return nil
	}
	return pgerr.Errorf(pgerr.ActiveSQLTransaction, "SET %s cannot run in a transaction block that has read or written a table", branchSetting)
}

// onBranch is tbl as branch sees it (branchView's errors with SQLSTATEs).
func onBranch(tbl *table.Table, branch string) (*table.Table, error) {
	view, err := lake.BranchView(tbl, branch)
	if errors.Is(err, lake.ErrRefKind) {
		return nil, &pgerr.Error{Code: pgerr.WrongObjectType,
			Message: fmt.Sprintf("%s is %q, a tag of table %q: tags cannot be written", branchSetting, branch, lake.IdentKey(tbl.Identifier())),
			Hint:    "Read a tag with FOR VERSION AS OF, or name a branch.", Err: err}
	}
	return view, err
}

// commitLoop is how the session's statements commit: to branch ("" is main).
func (b *txBlock) commitLoop(branch string) lake.CommitLoop {
	loop := b.engine.wh.Commits().CommitLoop(b.engine.opts.Retry)
	loop.Branch = branch
	return loop
}

// blockBranch is the branch the transaction block works on: the session's
// when the block touches its first table, and the same for every later one.
func (b *txBlock) blockBranch() (string, error) {
	if len(b.tables) == 0 {
		b.branch = b.settings.branch()
	}
	if now := b.settings.branch(); now != b.branch {
		return "", pgerr.Errorf(pgerr.ActiveSQLTransaction, "this transaction block works on branch %q; %s is now %q", branchLabel(b.branch), branchSetting, branchLabel(now))
	}
	return b.branch, nil
}

func branchLabel(b string) string {
	if b == "" {
		return table.MainBranch
	}
	return b
}

// splitRefName splits "t@b" (a table's branch or tag b) into t and b. A
// metadata table's name ("t$files") has none.
func splitRefName(name, meta string) (string, string) {
	if i := strings.LastIndexByte(name, '@'); i > 0 && i < len(name)-1 && meta == "" {
		return name[:i], name[i+1:]
	}
	return name, ""
}

// resolveRefSuffix reads n = t.branch_b or t.tag_v, Spark's names of
// table t's branch b and tag v: ok when n has that form and t is a table.
func (r *nameResolver) resolveRefSuffix(ctx context.Context, n sql.TableName, branch string) (*resolvedTable, bool, error) {
	kind, ref, found := strings.Cut(n.Table, "_")
	if !found || ref == "" || (kind != "branch" && kind != "tag") {
		return nil, false, nil
	}
	rt, err := r.resolveName(ctx, sql.TableName{Table: n.Schema}, n.Schema, "", ref, true, branch)
	if err != nil {
		return nil, false, nil // the original "no such table" stands
	}
	rf, ok := lake.FindRef(rt.Table.Metadata(), ref)
	switch {
	case !ok:
		return nil, true, pgerr.Errorf(pgerr.UndefinedObject, "table %q has no %s %q", n.Schema, kind, ref)
	case (rf.SnapshotRefType == table.TagRef) != (kind == "tag"):
		return nil, true, pgerr.Errorf(pgerr.WrongObjectType, "%q of table %q is not a %s", ref, n.Schema, kind)
	}
	return rt, true, nil
}

// tableItself refuses a metadata table ("t$files") or a ref ("t@b",
// t.branch_b) where a statement acts on the table itself (DROP TABLE, ALTER
// TABLE SET, maintenance): the name resolved to t, but does not name it.
func tableItself(rt *resolvedTable, n sql.TableName) error {
	switch {
	case rt.Meta != "":
		return pgerr.Errorf(pgerr.WrongObjectType, "%q is a metadata table", n.Table)
	case rt.Ref != "":
		return pgerr.Errorf(pgerr.WrongObjectType, "%q names a branch or tag; this takes the table itself", n.Table)
	}
	return nil
}

// writableTable refuses a statement that changes a metadata table or a
// table named with a ref ("t@b"): branches are written with SET
// magmalake.branch, and tags not at all.
func writableTable(rt *resolvedTable, verb string, n sql.TableName) error {
	switch {
	case rt.Meta != "":
		return pgerr.Errorf(pgerr.WrongObjectType, "cannot %s metadata table %q", verb, n.Table)
	case rt.Ref != "":
		return &pgerr.Error{Code: pgerr.FeatureNotSupported,
			Message: fmt.Sprintf("cannot %s %q: a table's branch is written with SET %s", verb, n.Table, branchSetting),
			Hint:    fmt.Sprintf("SET %s = '%s', then name the table itself.", branchSetting, rt.Ref)}
	}
	return nil
}
