// Package topic owns followed topics: an arXiv query the user follows, kept
// up to date incrementally (Update), measured week by week (Momentum) and
// summarised for a window of time (Digest). Topics and their membership are
// stored in the library (store.Topic); papers are ingested through
// ingest.Ingester like any other arXiv paper, so a paper may belong to
// several topics and is stored once.
package topic
