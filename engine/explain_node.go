package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ExplainPlan is what EXPLAIN shows: a tree of nodes with properties,
// rendered as PostgreSQL's text lines or as its FORMAT JSON document from
// the same tree, so the two cannot drift apart.
type ExplainPlan struct {
	Root *ExplainNode
	// Props stand beside "Plan" in JSON ("Planning Time", "Execution
	// Time"); their text follows the plan's.
	Props []ExplainProp
}

// ExplainNode is one operator: its text line and its properties and
// children, in text order, with its estimated rows and (EXPLAIN ANALYZE)
// what it did.
type ExplainNode struct {
	Text  string
	Props []ExplainProp
	// PlanRows is the rows the plan expects of the operator, shown when
	// Estimated: "(rows=N)" and "Plan Rows".
	PlanRows  float64
	Estimated bool
	// Actual, when set, is what the operator did; Loops 0: it never ran.
	Actual *ExplainActual
}

// ExplainActual is what an operator did under EXPLAIN ANALYZE, summed over
// its loops (shown, as PostgreSQL does, per loop).
type ExplainActual struct {
	Rows, Loops    int64
	Startup, Total time.Duration
}

// perLoop is v averaged over the loops.
func (a *ExplainActual) perLoop(v float64) float64 {
	if a.Loops == 0 {
		return 0
	}
	return v / float64(a.Loops)
}

// header is the node's text line: its name, "(rows=N)" as PostgreSQL's
// "(cost=... rows=N width=W)" without the cost and width we do not
// model, and "(actual time=a..b rows=N loops=L)".
func (n *ExplainNode) header() string {
	h := n.Text
	if n.Estimated {
		h += fmt.Sprintf("  (rows=%.0f)", n.PlanRows)
	}
	switch a := n.Actual; {
	case a == nil:
	case a.Loops == 0:
		h += " (never executed)"
	default:
		h += fmt.Sprintf(" (actual time=%.3f..%.3f rows=%.0f loops=%d)", a.perLoop(ms(a.Startup)), a.perLoop(ms(a.Total)),
			a.perLoop(float64(a.Rows)), a.Loops)
	}
	return h
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// numbers are the estimate and actual keys of the node's JSON object, in
// PostgreSQL's order.
func (n *ExplainNode) numbers() []ExplainProp {
	var out []ExplainProp
	if n.Estimated {
		out = append(out, ExplainProp{Key: "Plan Rows", Value: int64(math.Round(n.PlanRows))})
	}
	if a := n.Actual; a != nil {
		out = append(out, ExplainProp{Key: "Actual Startup Time", Value: a.perLoop(ms(a.Startup))},
			ExplainProp{Key: "Actual Total Time", Value: a.perLoop(ms(a.Total))},
			ExplainProp{Key: "Actual Rows", Value: int64(math.Round(a.perLoop(float64(a.Rows))))},
			ExplainProp{Key: "Actual Loops", Value: a.Loops})
	}
	return out
}

// headerKey reports whether key names the operator; PostgreSQL puts its
// numbers after those.
func headerKey(key string) bool {
	switch key {
	case "Node Type", "Subplan Name", "Strategy", "Join Type", "Relation Name", "Schema", "Alias", "Function Name", "Operation":
		return true
	}
	return false
}

// ExplainProp is a property of a node, or a child node (Plan set). Key is
// its JSON key in PostgreSQL's style ("Node Type", "Relation Name",
// "Filter"), empty when JSON leaves it out; Text is its text, one or more
// lines relative to the node's indentation, empty when text leaves it out.
// A child's Text is a label line printed above it (the child then sits
// one level deeper) and its Key becomes the child's "Parent Relationship".
type ExplainProp struct {
	Key   string
	Value any // a string, number, bool, []any, ExplainObject or json.RawMessage
	Text  string
	Plan  *ExplainNode
}

// ExplainObject is a JSON object whose keys keep their order.
type ExplainObject []ExplainProp

// Prop appends a property shown in both forms.
func (n *ExplainNode) Prop(key string, value any, text string) {
	n.Props = append(n.Props, ExplainProp{Key: key, Value: value, Text: text})
}

// Child appends a child node.
func (n *ExplainNode) Child(c *ExplainNode) {
	n.Props = append(n.Props, ExplainProp{Plan: c})
}

// Lines renders the plan as EXPLAIN's text rows, laid out as
// PostgreSQL's: a child's line starts with "->  ", its properties under
// its name.
func (p *ExplainPlan) Lines() []string {
	lines := p.Root.lines(nil, "", "")
	for _, pr := range p.Props {
		lines = appendText(lines, "", pr.Text)
	}
	return lines
}

// lines renders n at indentation ind (its properties' lines carry their
// own two spaces), its line prefixed by arrow.
func (n *ExplainNode) lines(out []string, ind, arrow string) []string {
	out = append(out, ind[:len(ind)-len(arrow)]+arrow+n.header())
	// The properties, then the children in their order.
	for _, pr := range n.Props {
		if pr.Plan == nil {
			out = appendText(out, ind, pr.Text)
		}
	}
	for _, pr := range n.Props {
		switch {
		case pr.Plan != nil && pr.Text != "":
			// A label ("SubPlan 1") and the child under it.
			out = appendText(out, ind, pr.Text)
			out = pr.Plan.lines(out, ind+"        ", "->  ")
		case pr.Plan != nil:
			out = pr.Plan.lines(out, ind+"      ", "->  ")
		}
	}
	return out
}

func appendText(out []string, ind, text string) []string {
	if text == "" {
		return out
	}
	for _, l := range strings.Split(text, "\n") {
		out = append(out, ind+l)
	}
	return out
}

// JSON renders the plan as EXPLAIN (FORMAT JSON) does: an array holding
// one object, {"Plan": {...}, ...}, indented two spaces a level.
func (p *ExplainPlan) JSON() string {
	var b bytes.Buffer
	b.WriteString("[\n  {\n    \"Plan\": ")
	p.Root.writeJSON(&b, "    ", "")
	for _, pr := range p.Props {
		if pr.Key != "" {
			b.WriteString(",\n    ")
			writeKey(&b, pr.Key)
			writeValue(&b, pr.Value, "    ")
		}
	}
	b.WriteString("\n  }\n]")
	return b.String()
}

func (n *ExplainNode) writeJSON(b *bytes.Buffer, ind, relationship string) {
	b.WriteString("{")
	first := true
	sep := func() {
		if !first {
			b.WriteString(",")
		}
		first = false
		b.WriteString("\n" + ind + "  ")
	}
	var plans []ExplainProp
	numbers := n.numbers()
	for i, pr := range n.Props {
		if numbers != nil && pr.Plan == nil && pr.Key != "" && !headerKey(pr.Key) {
			for _, num := range numbers {
				sep()
				writeKey(b, num.Key)
				writeValue(b, num.Value, ind+"  ")
			}
			numbers = nil
		}
		switch {
		case pr.Plan != nil:
			plans = append(plans, pr)
		case pr.Key != "":
			sep()
			writeKey(b, pr.Key)
			writeValue(b, pr.Value, ind+"  ")
		}
		if i == 0 && relationship != "" {
			// right after "Node Type", where PostgreSQL puts it
			sep()
			writeKey(b, "Parent Relationship")
			writeValue(b, relationship, ind+"  ")
		}
	}
	for _, num := range numbers {
		sep()
		writeKey(b, num.Key)
		writeValue(b, num.Value, ind+"  ")
	}
	if len(plans) > 0 {
		sep()
		b.WriteString(`"Plans": [`)
		for i, pr := range plans {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + ind + "    ")
			pr.Plan.writeJSON(b, ind+"    ", pr.Key)
		}
		b.WriteString("\n" + ind + "  ]")
	}
	b.WriteString("\n" + ind + "}")
}

func writeKey(b *bytes.Buffer, k string) {
	writeString(b, k)
	b.WriteString(": ")
}

func writeString(b *bytes.Buffer, s string) {
	js, _ := json.Marshal(s)
	b.Write(js)
}

func writeValue(b *bytes.Buffer, v any, ind string) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		writeString(b, x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'f', 3, 64))
	case json.RawMessage:
		var out bytes.Buffer
		if json.Indent(&out, x, ind, "  ") != nil {
			writeString(b, string(x))
			return
		}
		b.Write(out.Bytes())
	case []string:
		vs := make([]any, len(x))
		for i := range x {
			vs[i] = x[i]
		}
		writeValue(b, vs, ind)
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + ind + "  ")
			writeValue(b, e, ind+"  ")
		}
		b.WriteString("\n" + ind + "]")
	case ExplainObject:
		b.WriteString("{")
		for i, pr := range x {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + ind + "  ")
			writeKey(b, pr.Key)
			writeValue(b, pr.Value, ind+"  ")
		}
		b.WriteString("\n" + ind + "}")
	default:
		js, _ := json.Marshal(x)
		b.Write(js)
	}
}
