package vector

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// sameDimensions refuses vectors of different lengths from one provider: a vector of
// another length compares with nothing, so a build storing them would count chunks as
// embedded that no search can reach. The error names the provider and each length.
func sameDimensions(model string, vecs [][]float32) error {
	count := map[int]int{}
	for _, v := range vecs {
		if len(v) > 0 {
			count[len(v)]++
		}
	}
	if len(count) < 2 {
		return nil
	}
	var parts []string
	for _, dims := range slices.Sorted(maps.Keys(count)) {
		parts = append(parts, fmt.Sprintf("%d dimensions for %d texts", dims, count[dims]))
	}
	return fmt.Errorf("embeddings provider %s returned vectors of mixed dimensions (%s); no vector was stored: check the provider's model", model, strings.Join(parts, ", "))
}

// dimensionsDiffer says why vectors of dims cannot join stored ones of another length,
// naming the provider; "" when they can.
func dimensionsDiffer(model, what string, dims, stored int) string {
	if stored == 0 || dims == stored {
		return ""
	}
	return fmt.Sprintf("embeddings provider %s returned %s of %d dimensions, but the stored vectors have %d: the provider's model changed; run bf build --embed", model, what, dims, stored)
}
