package cmd

import (
	"math"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/retrieve"
)

// rankingFlags are the ranking flags search and eval share.
type rankingFlags struct {
	denseWeight    float64
	denseWeightSet bool // --dense-weight was given: it overrides the embedder's default
	noFeedback     bool
}

// register adds --dense-weight and --no-feedback to c.
func (r *rankingFlags) register(c *cobra.Command) {
	f := c.Flags()
	f.Float64Var(&r.denseWeight, "dense-weight", retrieve.DefaultFusion.DenseWeight, "hybrid: weight of the vector ranking against BM25's 1; 0.5 by default with openai:/ollama: embedders (tune it with papers eval)")
	f.BoolVar(&r.noFeedback, "no-feedback", false, "plain BM25: do not widen the query with the terms most typical of its best matches")
}

// check validates the flags of c, before anything runs.
func (r *rankingFlags) check(c *cobra.Command) error {
	if r.denseWeight < 0 || math.IsNaN(r.denseWeight) || math.IsInf(r.denseWeight, 0) {
		return usageError("--dense-weight must be a number of 0 or more, got %g", r.denseWeight)
	}
	r.denseWeightSet = c.Flags().Changed("dense-weight")
	return nil
}

// ranking is the fusion weight the flags set (nil: the embedder's default)
// and whether they ask for plain BM25.
func (r *rankingFlags) ranking() (denseWeight *float64, noFeedback bool) {
	if r.denseWeightSet {
		w := r.denseWeight
		denseWeight = &w
	}
	return denseWeight, r.noFeedback
}

// apply sets the ranking of o as the flags say.
func (r *rankingFlags) apply(o *retrieve.SearchOptions) {
	o.DenseWeight, o.NoFeedback = r.ranking()
}
