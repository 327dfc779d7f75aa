package sandbox

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/shellguard/shellguard/sandbox/netproxy"
)

// The network modes of a Spec: off (Network false, Proxy nil: a network
// namespace with only loopback), allowlist (Proxy set: the same namespace,
// plus the proxy's listener brought in as a descriptor at ProxyAddr) and
// on (Network true: the host's network).
const (
	NetOff       = "off"
	NetAllowlist = "allowlist"
	NetOn        = "on"
)

// ParseNetMode parses off, allowlist or on (true and false, the old
// boolean, mean on and off).
func ParseNetMode(s string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "off", "false", "none":
		return NetOff, true
	case "allowlist", "proxy":
		return NetAllowlist, true
	case "on", "true", "host":
		return NetOn, true
	}
	return "", false
}

// netRank orders the modes from the narrowest.
var netRank = map[string]int{NetOff: 0, NetAllowlist: 1, NetOn: 2}

// NetModes lists the network modes a request may choose under the Spec
// (those no wider than its own), narrowest first.
func (s Spec) NetModes() []string { return netModesUpTo(s.NetMode()) }

// WithNetModeName is WithNetMode that returns the resulting mode's name.
func (s Spec) WithNetModeName(mode string) (string, error) {
	n, err := s.WithNetMode(mode)
	return n.NetMode(), err
}

func netModesUpTo(mode string) []string {
	var out []string
	for _, m := range []string{NetOff, NetAllowlist, NetOn} {
		if netRank[m] <= netRank[mode] {
			out = append(out, m)
		}
	}
	return out
}

// WithNetMode returns the Spec with its network narrowed to mode (off,
// allowlist or on, as ParseNetMode reads it). A mode wider than the Spec's
// own is refused: a request narrows the network, only the configuration
// widens it. Allowlist under a Spec that is on needs its Proxy (the
// configuration sets one in both modes).
func (s Spec) WithNetMode(mode string) (Spec, error) {
	m, ok := ParseNetMode(mode)
	if !ok {
		return s, fmt.Errorf("%q is not a network mode: give off, allowlist or on", mode)
	}
	cur := s.NetMode()
	if netRank[m] > netRank[cur] {
		return s, fmt.Errorf("%s is wider than the configured %s (sandbox.network): a request may only narrow the network (%s)",
			m, cur, strings.Join(netModesUpTo(cur), ", "))
	}
	switch m {
	case NetOff:
		s.Network, s.Proxy = false, nil
	case NetAllowlist:
		if s.Proxy == nil {
			return s, errors.New("allowlist needs the proxy, which this configuration has not set up")
		}
		s.Network = false
	}
	return s, nil
}

// NetMode is the Spec's network mode.
func (s Spec) NetMode() string {
	switch {
	case s.Network:
		return NetOn
	case s.Proxy != nil:
		return NetAllowlist
	}
	return NetOff
}

// ProxyPort is where the proxy listens inside the command's network
// namespace, on 127.0.0.1 (the namespace is the command's own, so the
// port is free). It speaks HTTP, CONNECT and SOCKS5 on the one port.
const ProxyPort = 3128

// ProxyAddr is ProxyPort on the namespace's loopback.
var ProxyAddr = "127.0.0.1:" + strconv.Itoa(ProxyPort)

// NetUse is what the command did with the network in allowlist mode: each
// connection through the proxy. Filled in when the run's handle is closed.
type NetUse struct {
	// Proxy is where the command's proxy listens; empty in the off mode.
	Proxy       string          `json:"proxy,omitempty"`
	Connections []netproxy.Conn `json:"connections,omitempty"`
	// Refused are the hosts (host:port) refused, each once.
	Refused []string `json:"refused,omitempty"`
	// Grantable are those of Refused that a grant of exactly that
	// host:port would let through: not one refused for a reason no grant
	// lifts (a link-local or metadata address, a malformed destination).
	Grantable []string `json:"grantable,omitempty"`
	// Granted are the destinations allowed to this command beyond the
	// allowlist: Spec.NetGrants, and those of Asked the person allowed.
	Granted []string `json:"granted,omitempty"`
	// Asked are the destinations (host:port) put to the person while
	// the command ran (Handle.OnNetAsk); those allowed are in Granted.
	Asked []string `json:"asked,omitempty"`
	// Unknown are the host names the sandbox's DNS answered "no such
	// name" because no allowlist entry names them (all names, in the off
	// mode), in the order first asked and at most 16 (UnknownMore counts
	// the rest); a name also in Refused is listed there only. A tool that
	// resolves a name itself fails on such an answer without ever
	// reaching the proxy.
	Unknown     []string `json:"unknown,omitempty"`
	UnknownMore int      `json:"unknown_more,omitempty"`
}

// noteUnknown records the names the DNS stub refused, leaving out those
// the proxy also refused (the same host, told once).
func (u *NetUse) noteUnknown(names []string, more int) {
	if u == nil || len(names) == 0 {
		return
	}
	for _, n := range names {
		if !slices.ContainsFunc(u.Refused, func(hp string) bool {
			h, _, _ := strings.Cut(hp, ":")
			return h == n
		}) {
			u.Unknown = append(u.Unknown, n)
		}
	}
	u.UnknownMore = more
}

func (u *NetUse) fill(recs []netproxy.Conn) {
	u.Connections = recs
	seen := map[string]bool{}
	never := map[string]bool{}
	for _, r := range recs {
		hp := r.Host + ":" + strconv.Itoa(r.Port)
		if r.Allowed {
			continue
		}
		if !seen[hp] {
			seen[hp] = true
			u.Refused = append(u.Refused, hp)
		}
		if !r.Grantable {
			never[hp] = true
		}
	}
	sort.Strings(u.Refused)
	for _, hp := range u.Refused {
		// One refusal that no grant lifts, and the host is not offered.
		if !never[hp] {
			u.Grantable = append(u.Grantable, hp)
		}
	}
}

// NetGrantEntries parses grants ("host:port", each naming one host, an
// IP address or a name, and one port) into allowlist entries. Patterns,
// ranges and port wildcards are refused: a grant is exactly what was
// refused.
func NetGrantEntries(grants []string) (netproxy.Allowlist, error) {
	var al netproxy.Allowlist
	for _, g := range grants {
		e, err := netproxy.ParseEntry(g, "granted")
		if err != nil {
			return al, fmt.Errorf("network grant %q: %w", g, err)
		}
		if e.Port <= 0 || strings.ContainsAny(e.Host, "*/") {
			return al, fmt.Errorf("network grant %q: a grant names one host and one port", g)
		}
		al.Entries = append(al.Entries, e)
	}
	return al, nil
}

// warnings say which hosts were refused and which names did not resolve.
func (u *NetUse) warnings() []string {
	if u == nil {
		return nil
	}
	var w []string
	if len(u.Refused) > 0 {
		w = append(w, "network: refused "+strings.Join(u.Refused, ", ")+
			" (not in the allowlist; add hosts to "+netproxy.Setting+" in the user configuration)")
	}
	if len(u.Unknown) > 0 {
		names := strings.Join(u.Unknown, ", ")
		if u.UnknownMore > 0 {
			names += fmt.Sprintf(" and %d more", u.UnknownMore)
		}
		why := "the sandbox's network is off"
		if u.Proxy != "" {
			why = "not in the allowlist; add hosts to " + netproxy.Setting + " in the user configuration"
		}
		w = append(w, "network: lookups of "+names+" were answered \"no such host\" ("+why+")")
	}
	return w
}

// proxyEnv points every proxy setting of the command's environment at the
// proxy: the standard variables in both cases, and the settings of the
// toolchains that read their own (npm, pip, Cargo, yarn). Loopback is
// reached directly (NO_PROXY), so a server the command starts answers.
func proxyEnv(env []string) []string {
	http := "http://" + ProxyAddr
	socks := "socks5h://" + ProxyAddr
	for _, kv := range [][2]string{
		{"HTTP_PROXY", http}, {"HTTPS_PROXY", http}, {"ALL_PROXY", socks},
		{"http_proxy", http}, {"https_proxy", http}, {"all_proxy", socks},
		{"NO_PROXY", "localhost,127.0.0.1,::1"}, {"no_proxy", "localhost,127.0.0.1,::1"},
		{"npm_config_proxy", http}, {"npm_config_https_proxy", http},
		{"PIP_PROXY", http}, {"CARGO_HTTP_PROXY", http},
		{"YARN_HTTP_PROXY", http}, {"YARN_HTTPS_PROXY", http},
		// git reads http_proxy, but a user's http.proxy would win.
		{"GIT_CONFIG_COUNT", "1"}, {"GIT_CONFIG_KEY_0", "http.proxy"}, {"GIT_CONFIG_VALUE_0", http},
	} {
		env = envSet(env, kv[0], kv[1])
	}
	return env
}

// offlineEnv tells the toolchains that have a switch for it that there is
// no network, so they fail at once instead of retrying.
func offlineEnv(env []string) []string {
	for _, kv := range [][2]string{
		{"npm_config_offline", "true"}, {"PIP_NO_INDEX", "1"}, {"CARGO_NET_OFFLINE", "true"},
		{"UV_OFFLINE", "1"}, {"YARN_ENABLE_OFFLINE_MODE", "1"}, {"HF_HUB_OFFLINE", "1"},
	} {
		env = envSet(env, kv[0], kv[1])
	}
	// GOPROXY=off: module downloads fail at once; a local file://
	// proxy in front (the user's module cache) keeps serving.
	off := "off"
	if v, _ := envGet(env, "GOPROXY"); strings.HasPrefix(v, "file://") {
		first, _, _ := strings.Cut(v, ",")
		off = first + ",off"
	}
	env = envSet(env, "GOPROXY", off)
	return env
}

// netEnv adds the network mode's variables to a command's environment.
func netEnv(env []string, spec Spec) []string {
	switch spec.NetMode() {
	case NetAllowlist:
		return proxyEnv(env)
	case NetOff:
		return offlineEnv(env)
	}
	return env
}
