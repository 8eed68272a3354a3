package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// ErrTopicExists is returned by AddTopic when the name is taken.
var ErrTopicExists = errors.New("topic already exists")

// ErrInvalidTopic is wrapped by the *InvalidTopicError of CheckTopic and
// AddTopic.
var ErrInvalidTopic = errors.New("invalid topic")

// TopicProblem says what makes a topic invalid.
type TopicProblem int

const (
	TopicNoName      TopicProblem = iota + 1 // the name is empty (or only spaces)
	TopicControlChar                         // the name holds a newline, tab or other control character
	TopicNoQuery                             // the query is empty
)

// InvalidTopicError is a topic AddTopic refuses, and why.
type InvalidTopicError struct {
	Name    string
	Problem TopicProblem
}

func (e *InvalidTopicError) Error() string {
	switch e.Problem {
	case TopicNoName:
		return "a topic needs a name"
	case TopicControlChar:
		return fmt.Sprintf("topic name %q has a control character (newline, tab)", e.Name)
	}
	return fmt.Sprintf("topic %s needs a query", e.Name)
}

func (e *InvalidTopicError) Unwrap() error { return ErrInvalidTopic }

// CheckTopic reports whether AddTopic would take t (spaces around its name
// and query are trimmed): an *InvalidTopicError if not.
func CheckTopic(t Topic) error {
	name := strings.TrimSpace(t.Name)
	switch {
	case name == "":
		return &InvalidTopicError{Problem: TopicNoName}
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return &InvalidTopicError{Name: name, Problem: TopicControlChar}
	case strings.TrimSpace(t.Query) == "":
		return &InvalidTopicError{Name: name, Problem: TopicNoQuery}
	}
	return nil
}

// Topic is a followed arXiv search: its query, what `papers update` last
// did for it, and how many of its papers the library holds.
//
// Names are case-insensitive ("RL-Agents" and "rl-agents" are one topic).
type Topic struct {
	Name        string    `json:"name"`
	Query       string    `json:"query"` // arXiv search syntax
	Description string    `json:"description,omitempty"`
	Created     time.Time `json:"created"`
	// LastUpdate is when the last update run that finished (even with
	// per-paper failures) ended; zero before the first one.
	LastUpdate time.Time `json:"last_update"`
	// Cursor is the newest arXiv "updated" stamp of the last update run
	// that finished with every paper stored: the next run reads back at
	// least to it. An interrupted or partly failed run leaves it where it
	// was, so the rerun goes over the same ground again (held papers cost
	// nothing).
	Cursor time.Time `json:"cursor"`
	// Papers is how many papers of the library belong to the topic.
	Papers int `json:"papers"`
}

// The topic tables are created on first use by this file's own code path
// (CREATE TABLE IF NOT EXISTS), so libraries made before topics existed
// need no migration. topic_papers has no foreign key to papers on purpose:
// Put replaces a paper's row when a new version arrives, and membership
// must survive that.
//
// brought is 1 when the topic's update brought the paper into the library
// (it was not there before), so rm --purge deletes only those; stored_at is
// when an update of the topic last stored the paper new or revised (NULL:
// never, the library's added_at counts). Both came after the first topic
// release: the migration to schema 5 adds them to older tables
// (topicColumns), and rows from before count as brought, as purge treated
// them then.
const topicSchema = `
CREATE TABLE IF NOT EXISTS topics (
	name        TEXT PRIMARY KEY COLLATE NOCASE,
	query       TEXT NOT NULL,
	description TEXT NOT NULL DEFAULT '',
	created     INTEGER NOT NULL,
	last_update INTEGER,
	cursor      INTEGER
);
CREATE TABLE IF NOT EXISTS topic_papers (
	topic    TEXT NOT NULL COLLATE NOCASE REFERENCES topics (name) ON DELETE CASCADE ON UPDATE CASCADE,
	paper_id TEXT NOT NULL,
	added_at INTEGER NOT NULL,
	brought  INTEGER NOT NULL DEFAULT 1,
	stored_at INTEGER,
	PRIMARY KEY (topic, paper_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS topic_papers_paper ON topic_papers (paper_id);
`

// topicColumns are the columns added to topic_papers since it was first
// released, with their definitions for ALTER TABLE.
var topicColumns = []struct{ name, def string }{
	{"brought", "brought INTEGER NOT NULL DEFAULT 1"},
	{"stored_at", "stored_at INTEGER"},
}

// migrateTopics is the migration of schema 4 to 5: the topic tables, made
// on first use before (so a library may have them already, maybe without
// the columns added since), become part of the schema.
func migrateTopics(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, topicSchema); err != nil {
		return err
	}
	for _, c := range topicColumns {
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_info('topic_papers') WHERE name = ?", c.name).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			if _, err := tx.ExecContext(ctx, "ALTER TABLE topic_papers ADD COLUMN "+c.def); err != nil {
				return fmt.Errorf("add column topic_papers.%s: %w", c.name, err)
			}
		}
	}
	return nil
}

// AddTopic records a new topic. A topic CheckTopic refuses gives its
// *InvalidTopicError (wrapping ErrInvalidTopic); a name already taken (in
// any case) gives an error wrapping ErrTopicExists.
func (l *Library) AddTopic(ctx context.Context, t Topic) error {
	if err := CheckTopic(t); err != nil {
		return fmt.Errorf("add topic: %w", err)
	}
	t.Name, t.Query = strings.TrimSpace(t.Name), strings.TrimSpace(t.Query)
	if t.Created.IsZero() {
		t.Created = time.Now()
	}
	err := l.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM topics WHERE name = ?", t.Name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return ErrTopicExists
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO topics (name, query, description, created) VALUES (?, ?, ?, ?)",
			t.Name, t.Query, t.Description, t.Created.UnixNano())
		return err
	})
	if err != nil {
		return fmt.Errorf("add topic %s: %w", t.Name, err)
	}
	return nil
}

const topicSelect = `SELECT t.name, t.query, t.description, t.created, t.last_update, t.cursor,
	(SELECT count(*) FROM topic_papers tp JOIN papers p ON p.id = tp.paper_id WHERE tp.topic = t.name)
	FROM topics t`

// Topic returns the named topic (case-insensitive), or an error wrapping
// ErrNotFound.
func (l *Library) Topic(ctx context.Context, name string) (Topic, error) {
	ts, err := l.queryTopics(ctx, topicSelect+" WHERE t.name = ?", strings.TrimSpace(name))
	if err != nil {
		return Topic{}, fmt.Errorf("topic %s: %w", name, err)
	}
	if len(ts) == 0 {
		return Topic{}, fmt.Errorf("topic %s: %w", name, ErrNotFound)
	}
	return ts[0], nil
}

// Topics returns every topic, by name.
func (l *Library) Topics(ctx context.Context) ([]Topic, error) {
	ts, err := l.queryTopics(ctx, topicSelect+" ORDER BY t.name")
	if err != nil {
		return nil, fmt.Errorf("list topics: %w", err)
	}
	return ts, nil
}

func (l *Library) queryTopics(ctx context.Context, q string, args ...any) ([]Topic, error) {
	rows, err := l.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, wrapBusy(err)
	}
	defer rows.Close()
	var ts []Topic
	for rows.Next() {
		var t Topic
		var created int64
		var last, cursor sql.NullInt64
		if err := rows.Scan(&t.Name, &t.Query, &t.Description, &created, &last, &cursor, &t.Papers); err != nil {
			return nil, err
		}
		t.Created = time.Unix(0, created).UTC()
		t.LastUpdate = timeOf(last)
		t.Cursor = timeOf(cursor)
		ts = append(ts, t)
	}
	return ts, rows.Err()
}

// RemoveTopic deletes a topic and its memberships in one transaction. With
// purge, the papers the topic's updates brought into the library (see
// TopicMembers.Brought) that no other topic holds are deleted too, and their
// ids returned; papers that were in the library before the topic found them
// stay. Without purge, every paper stays in the library.
func (l *Library) RemoveTopic(ctx context.Context, name string, purge bool) ([]string, error) {
	var purged []string
	err := l.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM topics WHERE name = ?", name).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		if purge {
			rows, err := tx.QueryContext(ctx, `SELECT tp.paper_id FROM topic_papers tp
				WHERE tp.topic = ? AND tp.brought = 1 AND NOT EXISTS (SELECT 1 FROM topic_papers o WHERE o.paper_id = tp.paper_id AND o.topic != tp.topic)
				AND EXISTS (SELECT 1 FROM papers p WHERE p.id = tp.paper_id)
				ORDER BY tp.paper_id`, name)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return err
				}
				purged = append(purged, id)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			for _, id := range purged {
				if err := deletePaper(ctx, tx, id); err != nil {
					return fmt.Errorf("delete paper %s: %w", id, err)
				}
			}
			if len(purged) > 0 {
				if err := bumpVectorsGen(ctx, tx); err != nil {
					return err
				}
			}
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM topic_papers WHERE topic = ?", name); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "DELETE FROM topics WHERE name = ?", name)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("remove topic %s: %w", name, err)
	}
	return purged, nil
}

// AddToTopic makes the papers ids members of the topic (already members
// stay as they are), as papers the topic did not bring into the library:
// RemoveTopic with purge leaves them. The papers need not be in the library
// yet. Updates use AddTopicMembers.
func (l *Library) AddToTopic(ctx context.Context, name string, ids []string) error {
	return l.AddTopicMembers(ctx, name, TopicMembers{IDs: ids})
}

// TopicMembers are the papers one update run of a topic adds to it.
type TopicMembers struct {
	IDs []string // every paper that joins the topic (or stays in it)
	// Brought are those of IDs the run brought into the library: they were
	// not in it before. RemoveTopic with purge deletes only such papers.
	Brought []string
	// Stored are those of IDs the run stored new or at a new version; their
	// membership records when (see TopicPapersSince). A topic's first
	// update, which backfills its window, leaves it empty.
	Stored []string
}

// AddTopicMembers records m in the topic. A paper already a member keeps
// its membership; it becomes brought if m says so, and Stored papers get
// the current time as when the topic last stored them.
func (l *Library) AddTopicMembers(ctx context.Context, name string, m TopicMembers) error {
	if len(m.IDs) == 0 {
		return nil
	}
	brought, stored := setOf(m.Brought), setOf(m.Stored)
	now := time.Now().UnixNano()
	err := l.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM topics WHERE name = ?", name).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO topic_papers (topic, paper_id, added_at, brought, stored_at)
			VALUES ((SELECT name FROM topics WHERE name = ?), ?, ?, ?, ?)
			ON CONFLICT (topic, paper_id) DO UPDATE SET `+mergeMembership)
		if err != nil {
			return err
		}
		defer ins.Close()
		for _, id := range m.IDs {
			var at any
			if stored[id] {
				at = now
			}
			b := 0
			if brought[id] {
				b = 1
			}
			if _, err := ins.ExecContext(ctx, name, id, now, b, at); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add papers to topic %s: %w", name, err)
	}
	return nil
}

// joinTopic records, inside the transaction that stored paper id with
// result r, its membership in m.Topic (see Membership).
func joinTopic(ctx context.Context, tx *sql.Tx, m Membership, id string, r PutResult) error {
	now := time.Now().UnixNano()
	var at any
	if m.MarkStored && r != Unchanged {
		at = now
	}
	brought := 0
	if r == Added {
		brought = 1
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO topic_papers (topic, paper_id, added_at, brought, stored_at)
		SELECT name, ?, CAST(? AS BIGINT), CAST(? AS INTEGER), CAST(? AS BIGINT) FROM topics WHERE name = ?
		ON CONFLICT (topic, paper_id) DO UPDATE SET `+mergeMembership,
		id, now, brought, at, m.Topic)
	if err != nil {
		return fmt.Errorf("join topic %s: %w", m.Topic, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("join topic %s: %w", m.Topic, ErrNotFound)
	}
	return nil
}

// mergeMembership is how a membership a paper has already takes a new one
// (an upsert's SET): brought if either was, stored when the new one was.
const mergeMembership = `brought = CASE WHEN excluded.brought > topic_papers.brought THEN excluded.brought ELSE topic_papers.brought END,
	stored_at = coalesce(excluded.stored_at, topic_papers.stored_at)`

// TopicPapersSince returns the ids of the topic's papers that are new to it
// on or after since: stored new or revised by an update of the topic then
// (TopicMembers.Stored), or, for papers no such update stored (a first
// update's backfill, papers joined from the library, rows from before
// stored_at), published then.
func (l *Library) TopicPapersSince(ctx context.Context, name string, since time.Time) ([]string, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT tp.paper_id FROM topic_papers tp JOIN papers p ON p.id = tp.paper_id
		WHERE tp.topic = ? AND coalesce(tp.stored_at, p.published) >= ? ORDER BY tp.paper_id`, name, since.UnixNano())
	if err != nil {
		return nil, fmt.Errorf("papers of topic %s: %w", name, wrapBusy(err))
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("papers of topic %s: %w", name, err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("papers of topic %s: %w", name, err)
	}
	return ids, nil
}

func setOf(ids []string) map[string]bool {
	s := make(map[string]bool, len(ids))
	for _, id := range ids {
		s[id] = true
	}
	return s
}

// MarkTopicUpdated records that an update run of the topic ended at ran.
// A non-zero cursor replaces the stored one (see Topic.Cursor); a zero
// cursor leaves it.
func (l *Library) MarkTopicUpdated(ctx context.Context, name string, ran, cursor time.Time) error {
	err := l.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE topics SET last_update = ?, cursor = coalesce(?, cursor) WHERE name = ?",
			ran.UnixNano(), timeValue(cursor), name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("mark topic %s updated: %w", name, err)
	}
	return nil
}

// SetTopicDescription replaces the topic's description (what topic show,
// digest and browse show of it). A topic that does not exist is an error
// wrapping ErrNotFound.
func (l *Library) SetTopicDescription(ctx context.Context, name, description string) error {
	err := l.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE topics SET description = ? WHERE name = ?", strings.TrimSpace(description), name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("describe topic %s: %w", name, err)
	}
	return nil
}
