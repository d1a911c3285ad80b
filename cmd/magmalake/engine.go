package main

import (
	"context"
	"fmt"
	"net/url"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/session"
)

// describeCatalog names the catalog for \conninfo: its type and URI (no
// credentials), or the embedded catalog's directory.
func describeCatalog(c lake.Config) string {
	if uri := c.CatalogProps["uri"]; uri != "" || c.CatalogProps["type"] != "" {
		kind := c.CatalogProps["type"]
		if kind == "" {
			kind = "rest"
		}
		return fmt.Sprintf("%s catalog at %s", kind, redactURI(uri))
	}
	return "embedded catalog at " + c.DataDir
}

// redactURI drops a password from a catalog URI (postgres://u:p@h/db).
func redactURI(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
			return u.String()
		}
	}
	return uri
}

// openEngine starts the executor on wh and, with demo, makes sure the demo
// table exists.
func openEngine(ctx context.Context, wh *lake.Warehouse, demo bool, opts session.EngineOptions) (*session.Engine, error) {
	eng, err := session.NewEngine(ctx, wh, opts)
	if err != nil {
		return nil, fmt.Errorf("start engine: %w", err)
	}
	if demo {
		if err := eng.LoadDemo(ctx); err != nil {
			return nil, fmt.Errorf("load demo data: %w", err)
		}
	}
	return eng, nil
}
