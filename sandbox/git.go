package sandbox

import (
	"strings"
)

// PostRun is what shellguard did after the command ended (filled in when
// the handle is closed; shared by every copy of the Applied it belongs to).
type PostRun struct {
	// Git lists what happened to the workspace's .git: config keys applied
	// through the broker, refused keys and files.
	Git []string `json:"git,omitempty"`
	// Overlay says what of a Strict run's copy-on-write workspace was
	// applied to the real one, and what was refused.
	Overlay []string `json:"overlay,omitempty"`
	// Warnings are the refusals among them, in plain words.
	Warnings []string `json:"warnings,omitempty"`
	// Review is what a review run's reviewer saw and chose (Spec.Review).
	Review *Reviewed `json:"review,omitempty"`
	// Unfinished names the post-run steps that did not finish (the
	// deadline, Spec.PostRunTimeout, passed, or the workspace search
	// reached its limit): what the command left was not all checked, and
	// the run is reported as failed closed.
	Unfinished []string `json:"unfinished,omitempty"`
}

// gitStateFiles are the files directly in .git that git itself writes for
// commits, fetches, merges, rebases, cherry-picks, bisects and gc. Inside
// the sandbox they are hard links into a private view of .git and what git
// wrote is moved back after the run; every other name in .git (config,
// commondir, gitdir, config.worktree, anything new) is not.
var gitStateFiles = map[string]bool{
	"index": true, "HEAD": true, "ORIG_HEAD": true, "FETCH_HEAD": true, "packed-refs": true,
	"COMMIT_EDITMSG": true, "MERGE_HEAD": true, "MERGE_MSG": true, "MERGE_MODE": true,
	"MERGE_RR": true, "MERGE_AUTOSTASH": true, "AUTO_MERGE": true, "REBASE_HEAD": true,
	"CHERRY_PICK_HEAD": true, "REVERT_HEAD": true, "BISECT_LOG": true, "BISECT_START": true,
	"BISECT_EXPECTED_REV": true, "BISECT_ANCESTORS_OK": true, "BISECT_NAMES": true,
	"BISECT_TERMS": true, "BISECT_RUN": true, "BISECT_HEAD": true, "shallow": true,
	"gc.pid": true, "gc.log": true, "SQUASH_MSG": true, "TAG_EDITMSG": true,
	"NOTES_EDITMSG": true, "NOTES_MERGE_PARTIAL": true, "NOTES_MERGE_REF": true,
}

// gitDataDirs are bound writable into the view: objects, refs, reflogs,
// git-lfs objects, rerere records.
var gitDataDirs = map[string]bool{"objects": true, "refs": true, "logs": true, "lfs": true, "rr-cache": true}

// gitStateDirs are moved into the view for the run and back after it (git
// creates and removes them: a bind mount could not be removed).
var gitStateDirs = map[string]bool{"rebase-merge": true, "rebase-apply": true, "sequencer": true, "BISECT_RUN.d": true}

// gitConfigAllowed says whether a workspace git config key written inside
// the sandbox may be applied to the real .git/config: identity, remotes
// (URL and fetch into refs/remotes/ only) and branch tracking. Everything
// else (core.*, alias.*, *.cmd, hooksPath, fsmonitor, include*, filter.*,
// credential.*, remote.*.uploadpack …) can make git run a program and is
// refused. value is the new value ("" when removed).
func gitConfigAllowed(key, value string) bool {
	k := strings.ToLower(key)
	sec, rest, ok := strings.Cut(k, ".")
	if !ok {
		return false
	}
	name := rest
	if i := strings.LastIndex(rest, "."); i >= 0 {
		name = rest[i+1:]
	}
	sub := strings.Contains(rest, ".")
	switch sec {
	case "user":
		return !sub && (name == "name" || name == "email" || name == "signingkey")
	case "remote":
		if !sub {
			return false
		}
		switch name {
		case "url", "pushurl":
			return value == "" || safeRemoteURL(value)
		case "fetch":
			if value == "" {
				return true
			}
			_, dst, ok := strings.Cut(strings.TrimPrefix(value, "+"), ":")
			return ok && strings.HasPrefix(dst, "refs/remotes/") && !strings.Contains(dst, "..")
		case "tagopt", "prune", "prunetags", "skipdefaultupdate", "skipfetchall":
			return true
		}
		return false
	case "submodule":
		return sub && (name == "active" || (name == "url" && (value == "" || safeRemoteURL(value))))
	case "branch":
		return sub && (name == "remote" || name == "merge" || name == "description" || name == "pushremote")
	}
	return false
}

// safeRemoteURL refuses transports that run a program (ext::, any
// helper::address form) and option-looking URLs.
func safeRemoteURL(u string) bool {
	if strings.HasPrefix(u, "-") || strings.Contains(u, "::") {
		return false
	}
	return !strings.ContainsAny(u, "\n\r\x00")
}
