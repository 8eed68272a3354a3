package browse_test

import (
	"context"
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/papers-cli/papers/browse"
)

// BenchmarkKey is one key on a page of 5,000 papers (the topic corpus's 30
// real records, repeated under other ids) at 80x24: Update and View, what
// bubbletea runs for each key before it draws.
func BenchmarkKey(b *testing.B) {
	lib := testLibrary(b)
	be := backend(lib)
	pg, err := be.Page(context.Background(), "rl", 0)
	if err != nil {
		b.Fatal(err)
	}
	base := pg.Papers
	pg.Papers = nil
	for i := range 5000 {
		p := base[i%len(base)]
		p.ID = fmt.Sprintf("%s-%d", p.ID, i)
		pg.Papers = append(pg.Papers, p)
	}
	pg.Total = len(pg.Papers)
	for _, k := range []struct {
		name string
		msg  tea.KeyPressMsg
	}{
		{"j", tea.KeyPressMsg{Code: 'j', Text: "j"}},
		{"pgdown", tea.KeyPressMsg{Code: tea.KeyPgDown}},
		{"G", tea.KeyPressMsg{Code: 'G', Text: "G"}},
	} {
		b.Run(k.name, func(b *testing.B) {
			m := browse.New(be, browse.Options{Topic: "rl", Page: pg, Width: 80, Height: 24})
			up := tea.KeyPressMsg{Code: 'g', Text: "g"}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if i%4000 == 3999 {
					m.Update(up) // back to the top before the end of the page
				}
				m.Update(k.msg)
				_ = m.View()
			}
		})
	}
}
