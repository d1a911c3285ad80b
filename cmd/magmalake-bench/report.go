package main

import (
	"fmt"

	"github.com/magmalake/magmalake/internal/cli"
)

// reportLine prints each result as a line of text or of JSON.
func reportLine[R interface {
	Line() string
	JSON() string
}](std cli.Stdio, asJSON bool) func(R) error {
	return func(r R) error {
		line := r.Line()
		if asJSON {
			line = r.JSON()
		}
		_, err := fmt.Fprintln(std.Out, line)
		return err
	}
}
