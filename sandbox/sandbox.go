// Package sandbox runs one bash script under the kernel sandbox of
// shellguard: rlimits, user + mount + pid (+ net) namespaces, read-only
// mounts with the workspace writable, secret paths masked, Landlock,
// dropped capabilities, a seccomp deny-list and no_new_privs.
//
// The parent builds an unstarted *exec.Cmd with [Command]. The command
// re-executes the current binary (/proc/self/exe) with a hidden first
// argument; [Main], called first thing in main() (and in TestMain of test
// binaries that run commands), recognises it, applies every layer to its
// own process in a fixed order, reports what it applied over a pipe and
// then runs `bash -p -c SCRIPT`.
//
// Every layer is reported as applied or missing ([Applied]) from the return
// value of the call that enforced it, never from a probe. In [Auto] mode a
// missing layer is reported and the command still runs; in [Required] mode
// nothing runs when a layer is missing. [Probe] tells `shellguard doctor`
// what this machine can enforce.
//
// What it deliberately does not do: decide whether a command may run (that
// is policy), kill on timeout (the runner kills the process group; with a
// pid namespace that kills the whole tree), scrub the environment (the
// runner passes a scrubbed one; the sandbox only adds cache variables), or
// bound the total memory of a process tree (rlimits are per process; there
// is no cgroup support).
//
// After the run, and only after every process of it is gone, the parent
// takes a few steps outside the sandbox, with the user's rights, on what
// the command left: the "finishers", all listed with the paths they touch
// in one table (finish_linux.go) — the strict overlay's apply step, the
// .git view's return (git state moved back, config changes brokered), the
// protected files (.envrc, .shellguard.yaml) and the search for git
// metadata in the workspace. They touch only the workspace, and only
// through descriptors: openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|
// RESOLVE_NO_MAGICLINKS from a descriptor of the workspace (or of the real
// .git) taken before the run, O_NOFOLLOW|O_NONBLOCK, a regular-file check
// before any read, unlinkat/renameat on the parent's descriptor. They run
// no program (git config is parsed in process) and share one deadline
// (Spec.PostRunTimeout); past it the run is reported failed closed
// (PostRun.Unfinished). Before the run the parent also prepares the .git
// view and the overlay's directories and snapshots the protected files.
//
// Only Linux is supported; on other platforms [Command] runs bash without a
// sandbox in Auto mode and fails in Required mode, and [Probe] says so.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/shellguard/shellguard/sandbox/netproxy"
)

// Mode says what to do when a layer cannot be applied.
type Mode int

const (
	// Auto applies every layer the kernel allows and reports the missing
	// ones. It is the zero value, so a zero Spec is sandboxed.
	Auto Mode = iota
	// Required fails closed: if any layer is missing, nothing runs.
	Required
	// Off runs bash directly, without the helper.
	Off
	// Strict is Required plus a copy-on-write workspace: the command
	// writes into an overlay whose changes shellguard applies to the real
	// workspace after the run, replacing files by rename, so a file
	// hard-linked to one outside the workspace is never written through
	// (overlay_linux.go).
	Strict
)

// Requires reports whether m fails closed on a missing layer (Required
// and Strict).
func (m Mode) Requires() bool { return m == Required || m == Strict }

func (m Mode) String() string {
	switch m {
	case Auto:
		return "auto"
	case Required:
		return "required"
	case Off:
		return "off"
	case Strict:
		return "strict"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode parses "auto", "required", "strict" or "off"
// (case-insensitive; "" is auto).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return Auto, nil
	case "required", "require":
		return Required, nil
	case "strict":
		return Strict, nil
	case "off", "none", "disabled":
		return Off, nil
	}
	return Auto, fmt.Errorf("sandbox: unknown mode %q (want auto, required, strict or off)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// DefaultPostRunTimeout bounds all post-run work of one run (see
// Spec.PostRunTimeout).
const DefaultPostRunTimeout = 5 * time.Second

// Spec is what to enforce. The zero value is a sensible default: Auto
// mode, the command's directory as workspace, no network, the built-in
// secret list masked, default limits.
type Spec struct {
	Mode Mode `json:"mode"`
	// Workspace is writable (default: the command's dir).
	Workspace string `json:"workspace,omitempty"`
	// WritableRoots are writable too. /tmp, $TMPDIR, /dev/shm, CacheDir
	// and the usual devices are always added.
	WritableRoots []string `json:"writable_roots,omitempty"`
	// ReadOnlyPaths stay read-only although they lie inside a writable
	// root. Relative paths are taken relative to the workspace. Added to
	// DefaultReadOnlyPaths.
	ReadOnlyPaths []string `json:"readonly_paths,omitempty"`
	// MaskedPaths are hidden (an empty, inaccessible directory or file is
	// mounted over them). "~/" is Home. DefaultMaskedPaths are added when
	// Home cannot be hidden as a whole.
	MaskedPaths []string `json:"masked_paths,omitempty"`
	// Home is the home directory that is hidden (default: HOME of the
	// command's environment).
	Home string `json:"home,omitempty"`
	// HomeAllow are added to DefaultHomeAllow: paths in Home ("~/"
	// optional, globs in the last element) bound back read-only into the
	// otherwise empty HOME.
	HomeAllow []string `json:"home_allow,omitempty"`
	// Network false (the default) means no network: a new network
	// namespace with only loopback, or, without one, Landlock TCP rules and
	// a seccomp rule against UDP/raw sockets.
	Network bool `json:"network,omitempty"`
	// Proxy, with Network false, is the allowlist mode: the command's
	// network namespace still has only loopback, and the proxy's listener
	// is brought into it at ProxyAddr (a descriptor the helper opens
	// there and hands out); the proxy settings of the environment point
	// at it. The parent serves that listener, and the DNS stub's sockets,
	// from the command's first connection or query on (until then they
	// wait in the kernel's queues; netwait_linux.go). Nil: no network at
	// all (see NetMode).
	Proxy *netproxy.Proxy `json:"-"`
	// NetGrants are destinations ("host:port", exact) the proxy allows
	// this command beyond its allowlist: hosts a person granted after a
	// refusal. They never lift a forbidden address (netproxy), and are
	// ignored outside allowlist mode.
	NetGrants []string `json:"-"`
	// CacheDir is a writable directory owned by shellguard where build and
	// package caches go (GOCACHE, npm_config_cache, PIP_CACHE_DIR,
	// CARGO_HOME, XDG_CACHE_HOME …). Default: DefaultCacheDir.
	CacheDir string `json:"cache_dir,omitempty"`
	// Limits are per-process resource limits.
	Limits Limits `json:"limits"`
	// BashAsInit makes bash itself pid 1 of the pid namespace instead of a
	// small init that forwards signals and reaps orphans. For measurements.
	BashAsInit bool `json:"bash_as_init,omitempty"`
	// SessionTmp is a SessionTmp's Dir: its tmp/ and shm/ become /tmp
	// (and $TMPDIR) and /dev/shm. Empty: a fresh, empty /tmp and /dev/shm
	// per run.
	SessionTmp string `json:"-"`
	// SessionNet, when set, is the network namespace the command shares
	// with the other commands of its session (see SessionNet): a server
	// one of them starts on loopback answers the next. Nil: a namespace
	// of its own per run. Only without Network (off and allowlist).
	SessionNet *SessionNet `json:"-"`
	// PostRunTimeout bounds the steps shellguard takes outside the
	// sandbox after the run (applying the strict overlay, the .git view,
	// the workspace search); 0 means DefaultPostRunTimeout (5 s). When it
	// passes, the run is reported failed-closed (PostRun.Unfinished).
	PostRunTimeout time.Duration `json:"post_run_timeout,omitempty"`
	// Review runs the command in a copy-on-write workspace, as Strict
	// does, and applies nothing of it until the handle's reviewer
	// (Handle.OnReview) has seen the changes and chosen which land;
	// without a reviewer nothing does. A run whose overlay cannot be
	// mounted is refused before the command starts, whatever the Mode
	// (Off has no overlay: Command refuses Review there).
	Review bool `json:"review,omitempty"`
	// Pool is how many warm helpers a long-lived caller keeps ready (a
	// shellguard Session, see Pool): 0 means DefaultPool, a negative
	// value none (every command starts cold).
	Pool int `json:"pool,omitempty"`
}

// Limits are rlimits set in the helper before bash starts, so they hold
// from its first instruction. Zero means the default (see DefaultLimits);
// Unlimited means no limit; a negative value other than Unlimited means
// "leave as inherited".
type Limits struct {
	Procs     int64 `json:"procs"`      // RLIMIT_NPROC: tasks (processes and threads) of the uid
	DataBytes int64 `json:"data_bytes"` // RLIMIT_DATA: heap + private writable mappings per process
	ASBytes   int64 `json:"as_bytes"`   // RLIMIT_AS: address space per process (default: inherit)
	FileBytes int64 `json:"file_bytes"` // RLIMIT_FSIZE: largest file a process may write
	CPUSecs   int64 `json:"cpu_secs"`   // RLIMIT_CPU per process
	OpenFiles int64 `json:"open_files"` // RLIMIT_NOFILE (default: inherit)
	CoreBytes int64 `json:"core_bytes"` // RLIMIT_CORE (default: 0)
	// CPUPercent is the cgroup's cpu.max for the whole tree, in percent
	// of one CPU (0: no bound). Only with a cgroup (see LayerCgroup).
	CPUPercent int64 `json:"cpu_percent,omitempty"`
}

// Unlimited as a Limits field means RLIM_INFINITY.
const Unlimited int64 = -1

// Inherit as a Limits field leaves the limit as inherited.
const Inherit int64 = -2

// DefaultMaskedPaths are the fallback when HOME cannot be hidden as a
// whole (no mount namespace, or HOME inside a writable root): then these
// are masked one by one ("~/" is Spec.Home).
var DefaultMaskedPaths = []string{
	"~/.ssh", "~/.aws", "~/.gnupg", "~/.config/gh", "~/.config/gcloud", "~/.azure",
	"~/.kube", "~/.docker/config.json", "~/.netrc", "~/.git-credentials", "~/.npmrc",
	"~/.pypirc", "~/.config/hub", "~/.config/git/credentials", "~/.password-store",
	"~/.vault-token", "~/.terraform.d/credentials.tfrc.json", "~/.config/doctl",
	"~/.oci", "~/.cargo/credentials", "~/.cargo/credentials.toml", "~/.gem/credentials",
	"~/.m2/settings-security.xml", "~/.pgpass", "~/.my.cnf", "~/.config/rclone",
	"~/.local/share/keyrings", "~/.mozilla", "~/.config/google-chrome", "~/.config/chromium",
	"~/.bash_history", "~/.zsh_history", "~/.python_history", "~/.psql_history",
	"~/.mysql_history", "~/.node_repl_history", "~/.config/op", "~/.1password",
	"~/.config/sops", "~/.config/age",
	// Shell start-up files are where tokens get exported (export
	// GITHUB_TOKEN=…); `bash -p -c` never reads them.
	"~/.bashrc", "~/.bash_profile", "~/.bash_login", "~/.profile", "~/.zshrc", "~/.zshenv",
	"~/.zprofile", "~/.config/fish/config.fish",
}

// DefaultReadOnlyPaths stay read-only inside the workspace: files that
// would let a command plant code that runs later, outside the sandbox.
var DefaultReadOnlyPaths = []string{
	".git/hooks", ".git/config", ".shellguard.yaml", ".shellguard.yml", ".envrc",
}

// Layer names, in the order the helper applies them.
const (
	LayerRlimits       = "rlimits"
	LayerUserNS        = "userns"
	LayerMountNS       = "mountns"
	LayerPidNS         = "pidns"
	LayerNetNS         = "netns"
	LayerReadOnlyRoot  = "readonly-root"
	LayerReadOnlyPaths = "readonly-paths"
	LayerMasks         = "secret-masks"
	LayerProc          = "proc"
	LayerLoopback      = "loopback"
	LayerCaps          = "caps"
	LayerLandlockFS    = "landlock-fs"
	LayerLandlockNet   = "landlock-net"
	LayerLandlockScope = "landlock-scope"
	LayerSeccomp       = "seccomp"
	LayerNoNewPrivs    = "no-new-privs"
	// LayerSession: a session of its own without a controlling terminal,
	// and a private /dev/pts.
	LayerSession = "session"
	// LayerFDs: every inherited descriptor >= 3 closed before bash.
	LayerFDs = "fds"
	// LayerIPC: private /tmp and /dev/shm, /run hidden, an IPC
	// namespace, socket families limited, unix connects supervised.
	LayerIPC = "ipc"
	// LayerOverlay: in Strict mode the workspace is a copy-on-write overlay.
	// The command writes into a private upper directory; after the run the
	// parent applies it to the real workspace, replacing each changed file by
	// rename. A workspace file hard-linked to a file outside (pnpm, uv and
	// other content stores) therefore gets a new inode instead of being
	// written through, whatever the command did to it: >, >>, sed -i,
	// truncate, chmod, cp onto it.
	LayerOverlay = "overlay"
	// LayerRootMap: when shellguard runs as root, the command runs as an
	// unprivileged uid and gid (RootMapID, the same number inside and on the
	// host), so its files-on-host identity is not root: root-owned files
	// outside the writable roots (/proc/sys entries, raw devices, 0644 files
	// under /etc) are refused by plain permission checks, not only by the
	// read-only mounts and Landlock. The writable roots stay writable through
	// idmapped mounts (mount_setattr MOUNT_ATTR_IDMAP): through them a file
	// owned by root on disk is owned by RootMapID, and what the command
	// creates there is owned by root on disk.
	LayerRootMap = "rootmap"
	// LayerNetProxy: in allowlist mode, the proxy's listener inside the
	// network namespace (net_linux.go).
	LayerNetProxy = "netproxy"
	// LayerDNS: in off and allowlist mode, a DNS stub on the namespace's
	// loopback that /etc/resolv.conf names, so lookups fail or succeed at
	// once instead of waiting for an unreachable resolver (dns_linux.go).
	LayerDNS = "dns"
)

// Layer is one protection of the sandbox: applied (in Applied.Layers,
// with Detail) or wanted but not applied (in Applied.Missing and
// Unavailable, with Reason and Fix).
type Layer struct {
	Name   string `json:"name"`
	Detail string `json:"detail,omitempty"` // how it was applied
	Reason string `json:"reason,omitempty"` // why it was not, from the failing call
	Fix    string `json:"fix,omitempty"`    // what would enable it
}

// Applied is exactly what the helper enforced, built from the return
// values of the enforcing calls. It marshals to JSON as is.
type Applied struct {
	Mode     Mode    `json:"mode"`
	Platform string  `json:"platform"`
	Layers   []Layer `json:"layers"`
	Missing  []Layer `json:"missing,omitempty"`
	// Network is "none" (loopback-only namespace or TCP/UDP denied),
	// "allowlist" (loopback-only namespace, the hosts of the allowlist
	// through the proxy), "host" (network allowed) or "partial" (some of
	// it denied).
	Network   string   `json:"network"`
	Workspace string   `json:"workspace,omitempty"`
	Writable  []string `json:"writable,omitempty"`
	// Init is "go-init" or "bash" (who is pid 1 of the pid namespace) or
	// "" without a pid namespace.
	Init string `json:"init,omitempty"`
	// Unavailable are layers this host cannot provide at all (cgroup v2
	// on a cgroup v1 host, or without a delegated cgroup); unlike Missing
	// they do not stop --sandbox required and are not repeated as a
	// warning on every run (doctor explains them).
	Unavailable []Layer `json:"unavailable,omitempty"`
	// Post is what shellguard did after the command ended (the .git
	// broker); filled in when the run's handle is closed.
	Post *PostRun `json:"post_run,omitempty"`
	// Warm: the command ran in a helper that had applied every layer
	// before it arrived (a session's warm helper, see Pool); it sees
	// exactly what a helper started for it would.
	Warm bool `json:"warm,omitempty"`
	// Net is what the command did through the allowlist proxy (net.go);
	// filled in when the run's handle is closed.
	Net *NetUse `json:"net,omitempty"`
	// FSRefused are the paths the command's error output says it could
	// not write or read where the sandbox is what refused them (filled in
	// by shellguard after a failed foreground run).
	FSRefused []FSRefusal `json:"fs_refused,omitempty"`
}

// FSRefusal is one file access the sandbox refused.
type FSRefusal struct {
	Path string `json:"path"`
	// Access is "write" (outside every writable root) or "read" (in the
	// hidden HOME, or a masked path).
	Access string `json:"access"`
	// Grantable: a sandbox approver may be asked to allow exactly this
	// access; Why says why not otherwise.
	Grantable bool   `json:"grantable"`
	Why       string `json:"why,omitempty"`
}

// MapText returns a copy of a with f applied to every text in it that
// may hold a name from the workspace or the host (details, reasons, fixes,
// the post-run notes and warnings, paths); a itself is not changed. The
// caller passes its escape filter and redactor: see Guard's messages.
func (a Applied) MapText(f func(string) string) Applied {
	layers := func(ls []Layer) []Layer {
		if ls == nil {
			return nil
		}
		out := make([]Layer, len(ls))
		for i, l := range ls {
			name := l.Name
			if _, known := layerOf(name); !known { // a name of the layer table is shellguard's own
				name = f(name)
			}
			out[i] = Layer{Name: name, Detail: f(l.Detail), Reason: f(l.Reason), Fix: f(l.Fix)}
		}
		return out
	}
	texts := func(ss []string) []string {
		if ss == nil {
			return nil
		}
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = f(s)
		}
		return out
	}
	a.Platform, a.Network, a.Workspace, a.Init = f(a.Platform), f(a.Network), f(a.Workspace), f(a.Init)
	a.Layers, a.Missing, a.Unavailable = layers(a.Layers), layers(a.Missing), layers(a.Unavailable)
	a.Writable = texts(a.Writable)
	if a.Post != nil {
		p := &PostRun{Git: texts(a.Post.Git), Overlay: texts(a.Post.Overlay), Warnings: texts(a.Post.Warnings),
			Unfinished: texts(a.Post.Unfinished)}
		if r := a.Post.Review; r != nil {
			p.Review = &Reviewed{Note: f(r.Note)}
			for _, c := range r.Changes {
				c.Path, c.Op, c.Kind, c.Mode, c.Diff, c.Note = f(c.Path), f(c.Op), f(c.Kind), f(c.Mode), f(c.Diff), f(c.Note)
				p.Review.Changes = append(p.Review.Changes, c)
			}
		}
		a.Post = p
	}
	if a.FSRefused != nil {
		rs := make([]FSRefusal, len(a.FSRefused))
		for i, r := range a.FSRefused {
			rs[i] = FSRefusal{Path: f(r.Path), Access: f(r.Access), Grantable: r.Grantable, Why: f(r.Why)}
		}
		a.FSRefused = rs
	}
	if a.Net != nil {
		n := &NetUse{Proxy: f(a.Net.Proxy), Refused: texts(a.Net.Refused), Grantable: texts(a.Net.Grantable), Granted: texts(a.Net.Granted),
			Asked: texts(a.Net.Asked), Unknown: texts(a.Net.Unknown), UnknownMore: a.Net.UnknownMore}
		for _, c := range a.Net.Connections {
			c.Host, c.Proto, c.Reason, c.Addr = f(c.Host), f(c.Proto), f(c.Reason), f(c.Addr)
			n.Connections = append(n.Connections, c)
		}
		a.Net = n
		if n.Proxy == "" && len(n.Unknown) == 0 && len(n.Refused) == 0 && len(n.Connections) == 0 && len(n.Granted) == 0 && len(n.Asked) == 0 {
			a.Net = nil // the off mode's, with nothing in it
		}
	}
	return a
}

// Has reports whether the layer name was applied.
func (a Applied) Has(name string) bool {
	for _, l := range a.Layers {
		if l.Name == name {
			return true
		}
	}
	return false
}

// Names returns the names of the applied layers.
func (a Applied) Names() []string {
	n := make([]string, len(a.Layers))
	for i, l := range a.Layers {
		n[i] = l.Name
	}
	return n
}

// Warnings returns one plain sentence per missing layer (empty when
// everything wanted was applied), for results and the audit line.
func (a Applied) Warnings() []string {
	if a.Mode == Off {
		return []string{"sandbox is off: the command ran with the full rights of the user"}
	}
	var w []string
	for _, m := range a.Missing {
		s := "sandbox layer " + m.Name + " is missing: " + describeMissing(m.Name)
		if m.Reason != "" {
			s += " (" + m.Reason + ")"
		}
		w = append(w, s)
	}
	if a.Post != nil {
		w = append(w, a.Post.Warnings...)
	}
	w = append(w, a.Net.warnings()...)
	return w
}

// String is a one-line plain-words summary.
func (a Applied) String() string {
	if a.Mode == Off {
		return "sandbox off"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sandbox %s: %s", a.Mode, strings.Join(a.Names(), ", "))
	if len(a.Missing) > 0 {
		ms := make([]string, len(a.Missing))
		for i, m := range a.Missing {
			ms[i] = m.Name
		}
		fmt.Fprintf(&b, "; missing: %s", strings.Join(ms, ", "))
	}
	if a.Network != "" {
		fmt.Fprintf(&b, "; network: %s", a.Network)
	}
	return b.String()
}

// Errors.
var (
	// ErrUnsupported: the platform has no sandbox.
	ErrUnsupported = errors.New("sandbox: not supported on this platform")
	// ErrLayerMissing: Required mode and a layer could not be applied.
	ErrLayerMissing = errors.New("sandbox: required layer missing")
	// ErrNoReport: the helper exited without reporting (it crashed or
	// was killed before applying the sandbox).
	ErrNoReport = errors.New("sandbox: helper sent no report")
	// ErrNoMain: the program was started as the sandbox helper but its
	// main did not call Main first, so it ran its own code instead.
	ErrNoMain = errors.New("sandbox: this program was started as the sandbox helper but did not run it: call sandbox.Main() as the first statement of main (and of TestMain)")
)

// LayerError names the layer that failed in Required mode.
type LayerError struct {
	Missing []Layer
}

func (e *LayerError) Error() string {
	var parts []string
	for _, m := range e.Missing {
		parts = append(parts, m.Name+": "+m.Reason)
	}
	return "sandbox: required layer missing, nothing ran: " + strings.Join(parts, "; ")
}

func (e *LayerError) Unwrap() error { return ErrLayerMissing }

// Report is what this machine can enforce, layer by layer (for doctor).
type Report struct {
	Platform string        `json:"platform"`
	Kernel   string        `json:"kernel,omitempty"`
	UID      int           `json:"uid"`
	Layers   []ProbeResult `json:"layers"`
	// Summary is one plain sentence: what runs in auto mode here.
	Summary string `json:"summary"`
	// RequiredOK is true when --sandbox required can run here.
	RequiredOK bool `json:"required_ok"`
	// Helper is the program started as the sandbox helper: the standalone
	// one beside this executable, or this executable and why.
	Helper string `json:"helper,omitempty"`
}

// ProbeResult is one line of the doctor table: a layer, and whether this
// machine enforces it (then Detail says how; otherwise Reason and Fix say
// why not and what would enable it).
type ProbeResult struct {
	Layer
	OK bool `json:"ok"`
}

// helperArg is the hidden first argument of the re-exec'd helper.
const helperArg = "__shellguard_sandbox_helper"

// IsHelper reports whether args (os.Args) is a helper invocation.
func IsHelper(args []string) bool { return len(args) > 1 && args[1] == helperArg }

// expandHome resolves "~" and "~/x" against home; other paths are cleaned.
func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		if home == "" {
			return ""
		}
		return filepath.Join(home, p[2:])
	}
	return filepath.Clean(p)
}

// envGet returns the last value of key in env.
func envGet(env []string, key string) (string, bool) {
	val, ok := "", false
	for _, kv := range env {
		if k, v, found := strings.Cut(kv, "="); found && k == key {
			val, ok = v, true
		}
	}
	return val, ok
}

// envSet replaces or appends key=val.
func envSet(env []string, key, val string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if k, _, found := strings.Cut(kv, "="); found && k == key {
			continue
		}
		out = append(out, kv)
	}
	return append(out, key+"="+val)
}

// under reports whether p is root or inside root (both clean, absolute).
func under(p, root string) bool {
	if root == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == root || len(p) > len(root) && p[len(root)] == '/' && strings.HasPrefix(p, root)
}

// String renders a Report as a doctor table.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "platform: %s", r.Platform)
	if r.Kernel != "" {
		fmt.Fprintf(&b, " (kernel %s)", r.Kernel)
	}
	fmt.Fprintf(&b, ", uid %d\n", r.UID)
	for _, l := range r.Layers {
		mark := "ok  "
		if !l.OK {
			mark = "MISS"
		}
		fmt.Fprintf(&b, "  %s %-15s %s\n", mark, l.Name, l.Detail)
		if !l.OK {
			if l.Reason != "" {
				fmt.Fprintf(&b, "       why: %s\n", l.Reason)
			}
			if l.Fix != "" {
				fmt.Fprintf(&b, "       fix: %s\n", l.Fix)
			}
		}
	}
	if r.Helper != "" {
		fmt.Fprintf(&b, "helper: %s\n", r.Helper)
	}
	fmt.Fprintf(&b, "%s\n", r.Summary)
	return b.String()
}

// MarshalJSON-friendly check that Applied round-trips (used in tests).
var _ = json.Marshal
