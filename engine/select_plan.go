package engine

import "github.com/magmalake/magmalake/plan"

// selectQuery runs a query level of the plan over its compiled source.
type selectQuery struct {
	*plan.Query
	src source
}
