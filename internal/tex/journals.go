package tex

import "strings"

// adsJournals are the journal macros of the AAS LaTeX styles, which the
// NASA ADS writes in the journal field of its BibTeX ("journal =
// {\apj}") and reference managers keep as they are. Outside AASTeX they
// are undefined, so papers writes the journal's name instead.
var adsJournals = map[string]string{
	"aj": "The Astronomical Journal", "actaa": "Acta Astronomica", "araa": "Annual Review of Astronomy and Astrophysics",
	"apj": "The Astrophysical Journal", "apjl": "The Astrophysical Journal Letters", "apjlett": "The Astrophysical Journal Letters",
	"apjs": "The Astrophysical Journal Supplement Series", "apjsupp": "The Astrophysical Journal Supplement Series",
	"ao": "Applied Optics", "apss": "Astrophysics and Space Science",
	"aap": "Astronomy and Astrophysics", "astap": "Astronomy and Astrophysics", "aapr": "Astronomy and Astrophysics Review",
	"aaps": "Astronomy and Astrophysics Supplement Series", "azh": "Astronomicheskii Zhurnal",
	"baas": "Bulletin of the American Astronomical Society", "bac": "Bulletin of the Astronomical Institutes of Czechoslovakia",
	"caa": "Chinese Astronomy and Astrophysics", "cjaa": "Chinese Journal of Astronomy and Astrophysics",
	"icarus": "Icarus", "jcap": "Journal of Cosmology and Astroparticle Physics",
	"jrasc": "Journal of the Royal Astronomical Society of Canada", "memras": "Memoirs of the Royal Astronomical Society",
	"mnras": "Monthly Notices of the Royal Astronomical Society", "na": "New Astronomy", "nar": "New Astronomy Reviews",
	"pra": "Physical Review A", "prb": "Physical Review B", "prc": "Physical Review C", "prd": "Physical Review D",
	"pre": "Physical Review E", "prl": "Physical Review Letters",
	"pasa": "Publications of the Astronomical Society of Australia", "pasp": "Publications of the Astronomical Society of the Pacific",
	"pasj": "Publications of the Astronomical Society of Japan", "rmxaa": "Revista Mexicana de Astronomía y Astrofísica",
	"qjras": "Quarterly Journal of the Royal Astronomical Society", "skytel": "Sky and Telescope", "solphys": "Solar Physics",
	"sovast": "Soviet Astronomy", "ssr": "Space Science Reviews", "zap": "Zeitschrift für Astrophysik",
	"nat": "Nature", "iaucirc": "IAU Circulars", "aplett": "Astrophysical Letters",
	"apspr": "Astrophysics and Space Physics Research", "bain": "Bulletin of the Astronomical Institutes of the Netherlands",
	"fcp": "Fundamentals of Cosmic Physics", "gca": "Geochimica et Cosmochimica Acta", "grl": "Geophysical Research Letters",
	"jcp": "The Journal of Chemical Physics", "jgr": "Journal of Geophysical Research",
	"jqsrt": "Journal of Quantitative Spectroscopy and Radiative Transfer", "memsai": "Memorie della Società Astronomica Italiana",
	"nphysa": "Nuclear Physics A", "physrep": "Physics Reports", "physscr": "Physica Scripta", "planss": "Planetary and Space Science",
	"procspie": "Proceedings of the SPIE", "psj": "The Planetary Science Journal",
}

// Journal returns the journal a venue names when the venue is an ADS
// journal macro ("\apjs", "{\mnras}"), and ok; otherwise s unchanged and
// false.
func Journal(s string) (string, bool) {
	m := strings.TrimSpace(s)
	for strings.HasPrefix(m, "{") && strings.HasSuffix(m, "}") {
		m = strings.TrimSpace(m[1 : len(m)-1])
	}
	name, ok := strings.CutPrefix(m, `\`)
	if !ok {
		return s, false
	}
	if j, ok := adsJournals[strings.TrimSuffix(name, "{}")]; ok {
		return j, true
	}
	return s, false
}
