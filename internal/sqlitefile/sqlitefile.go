// Package sqlitefile names SQLite database files for the driver
// (modernc.org/sqlite): as "file:" URIs, whose path must not hold the
// characters a URI gives a meaning to.
package sqlitefile

import "strings"

// URI is the "file:" URI of the database file at path, to which the
// caller appends its "?..." parameters. '%', '?' and '#' in the path are
// percent-encoded: unencoded, '?' would start the parameters early and
// '#' cut the path as a fragment, and a library in "papers#2" opened an
// empty database in "papers".
func URI(path string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}
