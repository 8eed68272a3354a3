package people

import (
	"slices"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		// an XMP dc:creator of one entry, as the PDF has it
		{"Kayla Thomason, Md Ali Babar, Ruth Brand", []string{"Kayla Thomason", "Md Ali Babar", "Ruth Brand"}},
		{"Kayla Thomason, Md Ali Babar", []string{"Kayla Thomason", "Md Ali Babar"}},
		// one person, family first (XMP of two peer PDFs)
		{"Bai, Shoumei", []string{"Shoumei Bai"}},
		{"Ali Babar, Md", []string{"Ali Babar, Md"}},
		{"van der Berg, Jan", []string{"Jan van der Berg"}},
		// Info /Author lists
		{"A. Smith, B. Jones and C. Brown", []string{"A. Smith", "B. Jones", "C. Brown"}},
		{"Ana Lima; Bo Chen; Cai Wu", []string{"Ana Lima", "Bo Chen", "Cai Wu"}},
		{"Smith, J.; Doe, A. B.", []string{"J. Smith", "A. B. Doe"}},
		{"Smith, J., Doe, A. B., Roe, R.", []string{"J. Smith", "A. B. Doe", "R. Roe"}},
		{"Zhang, Wei, Li, Ming", []string{"Wei Zhang", "Ming Li"}},
		{"Ann Lee, Bob Ray, and Cy Young", []string{"Ann Lee", "Bob Ray", "Cy Young"}},
		{"Smith, Jones, and Brown", []string{"Smith", "Jones", "Brown"}},
		{"Ann Lee & Bob Ray", []string{"Ann Lee", "Bob Ray"}},
		// BibTeX's "and" lists, names family first or not
		{"Smith, John and Doe, Jane", []string{"John Smith", "Jane Doe"}},
		{"Smith, John and Jane Doe and {OpenAI Team}", []string{"John Smith", "Jane Doe", "OpenAI Team"}},
		{"King, Jr., Martin Luther and Doe, Jane", []string{"King, Jr., Martin Luther", "Jane Doe"}},
		{"Doe, Jane and others", []string{"Jane Doe", "others"}},
		// CJK names are not paired as family and given
		{"张三, 李四", []string{"张三", "李四"}},
		// organisations stay whole
		{"Research and Development Team", []string{"Research and Development Team"}},
		{"GTEx Consortium", []string{"GTEx Consortium"}},
		{"Weinan E", []string{"Weinan E"}},
		// a feed's list with the authors it left out counted at the end
		{"Vaishnavi Shrivastava, Piero Kauffmann, Ahmed Awadallah +1", []string{"Vaishnavi Shrivastava", "Piero Kauffmann", "Ahmed Awadallah +1"}},
		{"  Zlatko\u00a0Tešanović  ", []string{"Zlatko Tešanović"}},
		{"", nil},
	} {
		if got := Split(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Split(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseAndString(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Name
		str  string
	}{
		{"Zlatko Tešanović", Name{Family: "Tešanović", Given: "Zlatko"}, "Zlatko Tešanović"},
		{"A. Del Maestro", Name{Family: "Del Maestro", Given: "A."}, "A. Del Maestro"},
		{"Ludwig van Beethoven", Name{Family: "van Beethoven", Given: "Ludwig"}, "Ludwig van Beethoven"},
		{"Martin Luther King Jr.", Name{Family: "King", Given: "Martin Luther", Suffix: "Jr."}, "King, Jr., Martin Luther"},
		{"Ali Babar, Md", Name{Family: "Ali Babar", Given: "Md"}, "Ali Babar, Md"},
		{"King, Jr., Martin", Name{Family: "King", Given: "Martin", Suffix: "Jr."}, "King, Jr., Martin"},
		{"DeepSeek-AI", Name{Family: "DeepSeek-AI"}, "DeepSeek-AI"},
		{"OpenAI Superalignment Team", Name{Family: "OpenAI Superalignment Team", Org: true}, "OpenAI Superalignment Team"},
		{"{Rodriguez Garcia}", Name{Family: "Rodriguez Garcia", Org: true}, "Rodriguez Garcia"},
	} {
		got := Parse(c.in)
		if got != c.want {
			t.Errorf("Parse(%q) = %+v, want %+v", c.in, got, c.want)
		}
		if s := got.String(); s != c.str {
			t.Errorf("Parse(%q).String() = %q, want %q", c.in, s, c.str)
		}
		if back := Parse(got.String()); !got.Org && back != got {
			t.Errorf("Parse(%q) does not read back %q: %+v", got.String(), c.in, back)
		}
	}
}

func TestNames(t *testing.T) {
	// What a library written before authors were split holds: one entry
	// per list. Single commas are family, given; two or more are a list.
	names, more := Names([]string{"Kayla Thomason, Md Ali Babar, Ruth Brand, Jo Wu"})
	if more || len(names) != 4 || names[1] != (Name{Family: "Babar", Given: "Md Ali"}) {
		t.Errorf("Names(old list) = %+v, %v", names, more)
	}
	names, more = Names([]string{"Lima, Ana", "Bo Chen", "Ahmed Awadallah +1"})
	if !more || len(names) != 3 || names[0] != (Name{Family: "Lima", Given: "Ana"}) || names[2].Family != "Awadallah" {
		t.Errorf("Names(zotero-style, feed) = %+v, %v", names, more)
	}
	names, more = Names([]string{"Jane Doe", "others"})
	if !more || len(names) != 1 {
		t.Errorf("Names(others) = %+v, %v", names, more)
	}
	names, _ = Names([]string{"Research and Development Team"})
	if len(names) != 1 || !names[0].Org {
		t.Errorf("Names(org with and) = %+v", names)
	}
}

func TestBibTeX(t *testing.T) {
	unbrace := func(s string) string {
		return strings.NewReplacer("{", "", "}", "", `\"u`, "ü", `\'e`, "é").Replace(s)
	}
	got := BibTeX(`Knuth, Donald E. and Leslie Lamport and {Barnes and Noble} and M{\"u}ller, Hans and Ren{\'e} de la Fontaine and King, Jr., Martin and others`, unbrace)
	want := []string{"Donald E. Knuth", "Leslie Lamport", "Barnes and Noble", "Hans Müller", "René de la Fontaine", "King, Jr., Martin", "others"}
	if !slices.Equal(got, want) {
		t.Errorf("BibTeX = %q\nwant     %q", got, want)
	}
}
