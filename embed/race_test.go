//go:build race

package embed

// raceEnabled is set when the tests run under the race detector, which
// makes embedding SciFact's 5,183 abstracts some tenfold dearer.
const raceEnabled = true
