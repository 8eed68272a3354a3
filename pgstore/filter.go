package pgstore

import (
	"strconv"
	"strings"

	"github.com/papers-cli/papers/store"
)

// filterEmpty reports whether f selects every paper (Limit, Offset and
// Brief aside).
func filterEmpty(f store.Filter) bool {
	return len(f.IDs) == 0 && len(f.Topics) == 0 && len(f.Tags) == 0 && !f.Saved &&
		len(f.Categories) == 0 && len(f.Authors) == 0 && f.Since.IsZero() && f.Until.IsZero()
}

// filterSQL returns a query of the ids of the papers f selects (Limit,
// Offset and Brief aside), with the same meaning as the embedded
// library's: categories match whole or by archive ("cs" is every cs.*),
// authors by a part of a name, tags and topics without regard to case, a
// corpus tag also as a phrase of whole words of a glued tag string. Its
// arguments are appended to args and numbered after those already there.
func (s *Store) filterSQL(f store.Filter, args *[]any) string {
	arg := func(v any) string {
		*args = append(*args, v)
		return "$" + strconv.Itoa(len(*args))
	}
	lower := func(ss []string) []string {
		out := make([]string, len(ss))
		for i, v := range ss {
			out[i] = strings.ToLower(v)
		}
		return out
	}
	var conds []string
	if len(f.IDs) > 0 {
		conds = append(conds, "p.id = ANY("+arg(f.IDs)+"::text[])")
	}
	if len(f.Topics) > 0 {
		conds = append(conds, "EXISTS (SELECT 1 FROM {s}.topic_papers tp WHERE tp.paper_id = p.id AND lower(tp.topic) = ANY("+arg(lower(f.Topics))+"::text[]))")
	}
	if len(f.Tags) > 0 {
		phrases := make([]string, len(f.Tags))
		for i, t := range f.Tags {
			phrases[i] = "% " + likeEscape(strings.ToLower(strings.Join(strings.Fields(t), " "))) + " %"
		}
		conds = append(conds, "EXISTS (SELECT 1 FROM {s}.paper_tags pt WHERE pt.paper_id = p.id AND (lower(pt.tag) = ANY("+arg(lower(f.Tags))+
			"::text[]) OR (pt.source = 'corpus' AND lower(' ' || pt.tag || ' ') LIKE ANY("+arg(phrases)+"::text[]))))")
	}
	if f.Saved {
		conds = append(conds, "p.id IN (SELECT paper_id FROM {s}.saved_papers)")
	}
	if len(f.Categories) > 0 {
		var exact, prefixes []string
		for _, c := range f.Categories {
			c = strings.ToLower(c)
			exact = append(exact, c)
			if !strings.Contains(c, ".") {
				prefixes = append(prefixes, likeEscape(c)+".%")
			}
		}
		cond := "lower(pc.category) = ANY(" + arg(exact) + "::text[])"
		if len(prefixes) > 0 {
			cond += " OR lower(pc.category) LIKE ANY(" + arg(prefixes) + "::text[])"
		}
		conds = append(conds, "EXISTS (SELECT 1 FROM {s}.paper_categories pc WHERE pc.paper_id = p.id AND ("+cond+"))")
	}
	if len(f.Authors) > 0 {
		pats := make([]string, len(f.Authors))
		for i, a := range f.Authors {
			pats[i] = "%" + likeEscape(a) + "%"
		}
		conds = append(conds, "EXISTS (SELECT 1 FROM jsonb_array_elements_text(p.authors::jsonb) a WHERE a ILIKE ANY("+arg(pats)+"::text[]))")
	}
	if !f.Since.IsZero() {
		conds = append(conds, "p.published >= "+arg(f.Since.UnixNano()))
	}
	if !f.Until.IsZero() {
		conds = append(conds, "p.published <= "+arg(f.Until.UnixNano()))
	}
	if len(conds) == 0 {
		conds = []string{"true"}
	}
	return "SELECT p.id FROM {s}.papers p WHERE " + strings.Join(conds, " AND ")
}

// likeEscape escapes LIKE's wildcards (PostgreSQL's escape is \).
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
