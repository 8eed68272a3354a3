// Package review owns literature-review tables: rows are papers, columns
// are questions asked of every paper, and each cell is a short answer with
// the verbatim sentence it rests on, its page and section, whether the
// paper states it at all, and a score.
//
// Build fills a table: cells already computed for the same paper state
// (store.Library.Fingerprints), question and answerer come from the
// library's cache, the others are computed (in parallel, written to the
// cache as they finish, so an interrupted run keeps what it did). An
// Answerer fills one cell: Offline asks the paper as `papers ask --paper`
// does (retrieval restricted to the paper, then ask's answer), Model has a
// language model answer from the passages retrieved for the cell. Either
// way a quote is shown only when it is found verbatim in the paper (see
// skeleton); a model's quote that is not is dropped and the cell marked.
//
// Select turns a Spec (papers by id, topic, tag, saved, search, with the
// usual filters, and the columns) into the papers of a review; a Spec is
// what a saved review keeps. Write renders a table for people (an aligned,
// wrapped terminal table), for notes (a Markdown pipe table) and for
// spreadsheets (CSV, one row per paper); the Table's JSON is the --json
// document of `papers review`.
package review
