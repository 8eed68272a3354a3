// Package beir holds what the readers of BEIR-format files (eval's test
// collections, ingest's corpora) share: the record id, which files in the
// wild write as a JSON string or number.
package beir

import (
	"encoding/json"
	"fmt"
)

// ID is a record's "_id", written as a JSON string or number: BEIR files in
// the wild have both, and qrels name either as text. A number keeps its
// literal text (5 is "5").
type ID string

// UnmarshalJSON accepts a JSON string or number.
func (id *ID) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		err := json.Unmarshal(b, &s)
		*id = ID(s)
		return err
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("_id %s is neither a string nor a number", b)
	}
	*id = ID(n)
	return nil
}
