package sandbox

// A Change is one entry a review run (Spec.Review) would apply to the
// workspace: the run's writes wait in its copy-on-write layer until the
// reviewer (Handle.OnReview) says which of them land.
type Change struct {
	// Path is workspace-relative, with slashes.
	Path string `json:"path"`
	// Op is "add", "modify", "delete", "mode" (the permission bits
	// only) or "replace" (a directory by a file, or the reverse).
	Op string `json:"op"`
	// Kind is "file", "dir" or "symlink": what the path becomes (for a
	// delete, what it was).
	Kind string `json:"kind"`
	// Mode is the permission bits, "0644", or "0644 -> 0755" when they
	// change.
	Mode string `json:"mode,omitempty"`
	// Size is the new size of a file.
	Size int64 `json:"size,omitempty"`
	// Diff is a unified diff of a text file (bounded: ReviewMaxDiff per
	// file, and ReviewMaxDiffTotal for the whole review). A symlink's
	// diff names its old and new target. Left out of results: the
	// reviewer sees it, the result lists the paths.
	Diff string `json:"diff,omitempty"`
	// Note says why there is no diff (a binary file, too large, the
	// budget spent).
	Note string `json:"note,omitempty"`
	// Applied: the reviewer let it land (set after the review).
	Applied bool `json:"applied"`
}

// Review bounds.
const (
	// ReviewMaxChanges is the most changes one review lists; a run that
	// changed more is not reviewable and nothing of it is applied.
	ReviewMaxChanges = 2000
	// ReviewMaxDiff bounds the diff of one file, and ReviewMaxFile the
	// size of a file that is diffed at all.
	ReviewMaxDiff = 64 << 10
	ReviewMaxFile = 1 << 20
	// ReviewMaxDiffTotal bounds the diffs of one review together.
	ReviewMaxDiffTotal = 1 << 20
)

// Reviewed is what a review decided (PostRun.Review).
type Reviewed struct {
	// Changes are what the run would have changed, each with Applied
	// set; Diff is left out.
	Changes []Change `json:"changes"`
	// Note says why nothing was applied when the reviewer was not
	// asked (too many changes, no reviewer) or failed.
	Note string `json:"note,omitempty"`
}
