package sandbox

import (
	"sort"
	"strings"
)

// layerInfo is what shellguard says about one layer, in one place: the
// warning when it is missing, the word a tool description uses for it,
// how doctor probes it and which machine facts explain its absence.
type layerInfo struct {
	name string
	// missing says what is open without it (Applied.Warnings).
	missing string
	// word names it in Applied.Words, at wordRank among the words;
	// nsWord instead lists it among the namespaces. wordNeeds is a
	// layer that must be applied too for the word to stand.
	word      string
	wordRank  int
	wordNeeds string
	nsWord    string
	// probe: when doctor asks for it (probeAlways, probeRoot: only as
	// root, probeStrict: strict mode's own run); bestEffort: its absence
	// does not stop required mode.
	probe      probeWhen
	bestEffort bool
	// facts are the machine facts that explain a failure.
	facts factKind
}

type probeWhen int

const (
	probeNever probeWhen = iota - 1
	probeAlways
	probeRoot
	probeStrict
)

type factKind int

const (
	noFacts factKind = iota
	userNSFacts
	landlockFacts
)

// layers lists every layer, in the order the helper applies them (the
// order doctor prints them in).
var layers = []layerInfo{
	{name: LayerRlimits, missing: "process count and memory are not bounded", word: "rlimits", wordRank: 9},
	{name: LayerUserNS, missing: "writes outside the workspace are only stopped by Landlock, and secrets in the home directory are not masked",
		nsWord: "user", facts: userNSFacts},
	{name: LayerMountNS, missing: "writes outside the workspace are only stopped by Landlock, and secrets in the home directory are not masked",
		nsWord: "mount", facts: userNSFacts},
	{name: LayerPidNS, missing: "background processes may outlive the command", nsWord: "pid", facts: userNSFacts},
	{name: LayerNetNS, missing: "only TCP is blocked (by Landlock), other protocols may reach the network", nsWord: "net", facts: userNSFacts},
	{name: LayerReadOnlyRoot, missing: "chmod, chown and timestamps outside the workspace are not blocked",
		word: "read-only outside the writable roots", wordRank: 1, facts: userNSFacts},
	{name: LayerReadOnlyPaths, missing: ".git/hooks and .git/config in the workspace are writable", facts: userNSFacts},
	{name: LayerMasks, missing: "secret files in the home directory are readable", word: "home secrets hidden", wordRank: 2, facts: userNSFacts},
	{name: LayerProc, missing: "/proc shows processes outside the sandbox", facts: userNSFacts},
	{name: LayerLoopback, missing: "loopback is down: local servers inside the command cannot be reached"},
	{name: LayerCaps, missing: "capabilities were not dropped"},
	{name: LayerLandlockFS, missing: "file writes outside the workspace are not blocked by Landlock", word: "landlock", wordRank: 3, facts: landlockFacts},
	{name: LayerLandlockNet, missing: "TCP connections are not blocked", facts: landlockFacts},
	{name: LayerLandlockScope, missing: "signals and abstract unix sockets outside the sandbox are reachable", facts: landlockFacts},
	{name: LayerSeccomp, missing: "dangerous system calls (ptrace, mount, bpf, kexec, MPTCP sockets …) are not filtered", word: "seccomp", wordRank: 4},
	{name: LayerNoNewPrivs, missing: "setuid programs can raise privileges", word: "no privileges", wordRank: 5, wordNeeds: LayerCaps},
	{name: LayerSession, missing: "the command may reach the caller's terminal or other terminals of the host"},
	{name: LayerFDs, missing: "descriptors the caller leaked (files, sockets) reach the command"},
	{name: LayerIPC, missing: "host /tmp, /dev/shm, /run or unix sockets of the user's services may be reachable"},
	{name: LayerHome, missing: "HOME is not hidden: only the built-in list of secret files is masked, other files in HOME are readable"},
	{name: LayerGit, missing: ".git metadata other than hooks and config is writable"},
	{name: LayerCgroup, missing: "the total memory, task count and CPU of the command's process tree are not bounded; only per-process rlimits apply",
		bestEffort: true},
	{name: LayerRootMap, missing: "the command runs as root of the host: only the read-only mounts and Landlock stand in front of root's files",
		word: "not root on the host", wordRank: 6, probe: probeRoot},
	{name: LayerOverlay, missing: "the workspace is not copy-on-write: a file hard-linked to one outside can be written through",
		word: "copy-on-write workspace", wordRank: 7, probe: probeStrict, bestEffort: true},
	// The proxy of the allowlist mode: reported by each run, not probed.
	{name: LayerNetProxy, probe: probeNever},
	// The DNS stub of the off and allowlist modes: likewise.
	{name: LayerDNS, probe: probeNever},
}

// layerOf returns the table's row for name.
func layerOf(name string) (layerInfo, bool) {
	for _, l := range layers {
		if l.name == name {
			return l, true
		}
	}
	return layerInfo{}, false
}

// describeMissing says what is open when the layer name is missing.
func describeMissing(name string) string {
	if l, ok := layerOf(name); ok && l.missing != "" {
		return l.missing
	}
	return "not applied"
}

// probedLayers are the layers doctor reports on, in the table's order:
// every one probed always, root's as root, and strict mode's (probed by
// a strict run of its own) when strict is set.
func probedLayers(root, strict bool) []string {
	var out []string
	for _, l := range layers {
		switch {
		case l.probe == probeAlways, l.probe == probeRoot && root, l.probe == probeStrict && strict:
			out = append(out, l.name)
		}
	}
	return out
}

// wordsOf is Applied.Words from the table.
func wordsOf(a Applied) []string {
	var out, ns []string
	for _, l := range layers {
		if l.nsWord != "" && a.Has(l.name) {
			ns = append(ns, l.nsWord)
		}
	}
	if len(ns) > 0 {
		out = append(out, "namespaces ("+strings.Join(ns, ", ")+")")
	}
	ranked := []layerInfo{}
	for _, l := range layers {
		if l.word != "" && a.Has(l.name) && (l.wordNeeds == "" || a.Has(l.wordNeeds)) {
			ranked = append(ranked, l)
		}
	}
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].wordRank < ranked[j].wordRank })
	for _, l := range ranked {
		out = append(out, l.word)
	}
	return out
}
