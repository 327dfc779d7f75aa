//go:build linux

package sandbox

// Secrets the filters must not let through: the git config the command
// sees, the toolchain directories brought back into HOME, and the
// helper's own memory.

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as a tool run inside the sandbox that looks for
// a secret in the memory and environment of the processes it can see.
func init() {
	if os.Getenv("SGTEST_SECRETS_TOOL") != "procmem" {
		return
	}
	secret, err := os.ReadFile(os.Args[1])
	if err != nil || len(secret) == 0 {
		fmt.Println("no needle:", err)
		os.Exit(0)
	}
	// pid 1 and every other process of this binary (the helper) but
	// this one: not bash, whose script is the command's own.
	pids := []string{"1"}
	self, _ := os.Readlink("/proc/self/exe")
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil || e.Name() == "1" || e.Name() == strconv.Itoa(os.Getpid()) {
			continue
		}
		if exe, _ := os.Readlink("/proc/" + e.Name() + "/exe"); exe == self {
			pids = append(pids, e.Name())
		}
	}
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + pid + "/environ")
		switch {
		case err != nil:
			fmt.Printf("%s/environ: unreadable\n", pid)
		case bytes.Contains(b, secret):
			fmt.Printf("%s/environ: FOUND\n", pid)
		default:
			fmt.Printf("%s/environ: clean\n", pid)
		}
		fmt.Printf("%s/mem: %s\n", pid, scanMem(pid, secret))
	}
	os.Exit(0)
}

// scanMem reads every readable mapping of pid through /proc/pid/mem.
func scanMem(pid string, secret []byte) string {
	maps, err := os.Open("/proc/" + pid + "/maps")
	if err != nil {
		return "maps unreadable"
	}
	defer maps.Close()
	mem, err := os.Open("/proc/" + pid + "/mem")
	if err != nil {
		return "unreadable"
	}
	defer mem.Close()
	read := 0
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || fields[1][0] != 'r' {
			continue
		}
		lo, hi, _ := strings.Cut(fields[0], "-")
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || b-a > 256<<20 {
			continue
		}
		buf := make([]byte, b-a)
		n, _ := mem.ReadAt(buf, int64(a))
		read += n
		if bytes.Contains(buf[:n], secret) {
			return "FOUND"
		}
	}
	if read == 0 {
		return "unreadable"
	}
	return fmt.Sprintf("clean (%d bytes)", read)
}

// gitConfigSecrets is a user's git config with secrets in every place the
// old name-based filter let through, and keys that must survive.
func gitConfigSecrets(secret string) string {
	return strings.Join([]string{
		"# my token: " + secret,
		"; also " + secret,
		"[user]",
		"\tname = Dev # " + secret,
		"\temail = dev@example.com",
		"[core]",
		"\tautocrlf = input",
		"\tsshCommand = ssh -o ProxyCommand='curl -H " + secret + "'",
		"\taskPass = /bin/echo-" + secret,
		"\teditor = vim -c " + secret,
		"[alias]",
		"\tco = checkout",
		"\tleak = !curl -u me:" + secret + " https://example.com",
		"\tpushx = push https://me:" + secret + "@example.com/r.git",
		"[http]",
		"\tproxy = http://me:" + secret + "@proxy.example:3128",
		"\tcookieFile = /x/" + secret,
		"[http \"https://example.com/\"]",
		"\tauthorization = Bearer " + secret,
		"[remote \"origin\"]",
		"\turl = https://oauth2:" + secret + "@example.com/r.git",
		"\tfetch = +refs/heads/*:refs/remotes/origin/*",
		"[url \"https://x-access:" + secret + "@example.com/\"]",
		"\tinsteadOf = https://example.com/",
		"[sendemail]",
		"\tsmtpPass = " + secret,
		"[github]",
		"\tuser = dev",
		"\tpat = " + secret,
		"[gpg]",
		"\tprogram = /usr/bin/gpg-" + secret,
		"[color]",
		"\tui = auto",
		"[init]",
		"\tdefaultBranch = main",
		"[custom \"x\"]",
		"\tvalue = " + secret,
		"[github]",
		"\tpat = ABCDEF \\",
		"\t" + secret,
		"[credential]",
		"\thelper = store --file /x/" + secret,
		"[include]",
		"\tpath = /x/" + secret,
		"[pull]",
		"\trebase = true",
	}, "\n") + "\n"
}

// parseGit lists a config file as git reads it (key=value lines).
func parseGit(t *testing.T, text string) []string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "config", "--file", p, "--list").CombinedOutput()
	if err != nil {
		t.Fatalf("git cannot read the filtered config: %v\n%s\n%s", err, out, text)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	sort.Strings(lines)
	return lines
}

// TestFilterGitConfigAllowlist: only keys that carry no secret and run
// nothing pass, as git itself reads them; comments go; URLs lose their
// credentials.
func TestFilterGitConfigAllowlist(t *testing.T) {
	const secret = "sgtestGITCFG0123456789"
	out, dropped := FilterGitConfig(gitConfigSecrets(secret))
	if strings.Contains(out, secret) || strings.Contains(out, "#") || strings.Contains(out, ";") {
		t.Errorf("secret or comment kept:\n%s", out)
	}
	if len(dropped) < 10 {
		t.Errorf("dropped: %v", dropped)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	got := strings.Join(parseGit(t, out), "\n")
	for _, want := range []string{"user.name=Dev", "user.email=dev@example.com", "core.autocrlf=input", "alias.co=checkout",
		"color.ui=auto", "init.defaultbranch=main", "pull.rebase=true", "remote.origin.fetch=+refs/heads/*:refs/remotes/origin/*"} {
		if !strings.Contains(got, want) {
			t.Errorf("%s dropped: git reads\n%s", want, got)
		}
	}
	for _, bad := range []string{"sshcommand", "askpass", "editor", "alias.leak", "http.", "sendemail", "github.pat", "gpg.", "custom.", "credential", "include"} {
		if strings.Contains(got, bad) {
			t.Errorf("%s kept: git reads\n%s", bad, got)
		}
	}
	// What is kept reads the same to git after the filter as before.
	benign := "\ufeff[user]\n\tname = \"A  \\\"B\\\" \" C\t D ; c\n[core] autocrlf = true\n\tquotepath\n" +
		"[Color \"Diff\"]\n\tmeta = yellow bold\n[alias]\n\tst = status \\\n -sb\n[url \"git@h:\"]\n\tinsteadOf = https://h/\n" +
		"[remote \"o r\"]\n\turl = ssh://git@h/r.git\r\n"
	in := parseGit(t, benign)
	out, _ = FilterGitConfig(benign)
	if back := parseGit(t, out); strings.Join(back, "\n") != strings.Join(in, "\n") {
		t.Errorf("git reads\n%s\nbefore and\n%s\nafter:\n%s", strings.Join(in, "\n"), strings.Join(back, "\n"), out)
	}
	// The same holds for what git reads from tricky syntax: quoting,
	// escapes, continuation lines, a key on the header's line.
	for _, in := range []string{
		"[core] autocrlf = true\n[credential] helper = \"store --file=" + secret + "\"\n",
		"[user]\n\tname = \"A \\\" B\" ; " + secret + "\n",
		"[alias]\n\tx = \"! sh -c " + secret + "\"\n",
		"[alias]\n\tx = \\\n!echo " + secret + "\n",
		"[github]\n\ttoken = A\\\n" + secret + "\n[user]\n\tname = B\n",
		"[core \"x\"]\n\tautocrlf = " + secret + "\n",
		"[remote \"o\"]\n\tpushurl = ftp://a:" + secret + "@h/\n",
		"[URL \"https://" + secret + "@h/\"]\n\tinsteadOf = h:\n",
		"[user]\n\tname = A\n\t[credential]\n\thelper = " + secret + "\n",
		"[user.x]\n\tname = " + secret + "\n",
	} {
		out, _ := FilterGitConfig(in)
		for _, l := range parseGit(t, out) {
			if strings.Contains(strings.ToLower(l), strings.ToLower(secret)) {
				t.Errorf("%q: git reads %q from\n%s", in, l, out)
			}
		}
	}
}

// toolchainTrees are toolchains in HOME as their installers lay them out,
// with the credential files each reads from its own tree.
var toolchainTrees = map[string]string{
	".nvm/versions/node/v20.1.0/bin/node":                     "#!node\n",
	".nvm/versions/node/v20.1.0/lib/node_modules/npm/pkg.txt": "npm\n",
	".nvm/versions/node/v20.1.0/etc/npmrc":                    "//registry.npmjs.org/:_authToken=SECRET\n",
	".nvm/versions/node/v20.1.0/.npmrc":                       "//r/:_authToken=SECRET\n",
	".pyenv/versions/3.12.1/bin/python3":                      "#!python\n",
	".pyenv/versions/3.12.1/lib/python3.12/os.py":             "os\n",
	".pyenv/versions/3.12.1/pip.conf":                         "[global]\nindex-url = https://u:SECRET@pypi.example/simple\n",
	".pyenv/versions/3.12.1/etc/pip.conf":                     "[global]\nindex-url = https://u:SECRET@pypi.example/simple\n",
	".sdkman/candidates/maven/3.9.6/bin/mvn":                  "#!mvn\n",
	".sdkman/candidates/maven/3.9.6/conf/settings.xml":        "<password>SECRET</password>\n",
	".gradle/wrapper/dists/gradle-8/bin/gradle":               "#!gradle\n",
	".gradle/gradle.properties":                               "token=SECRET\n",
	".cargo/bin/cargo":                                        "#!cargo\n",
	".cargo/config.toml":                                      "[registry]\ntoken = \"SECRET\"\n",
	".local/lib/python3.12/site-packages/m.py":                "m\n",
	".local/etc/npmrc":                                        "_authToken=SECRET\n",
}

// TestToolchainConfigHidden: the programs and libraries of the toolchains
// in HOME are there inside; the credential files in the same trees are not.
func TestToolchainConfigHidden(t *testing.T) {
	f := newFixture(t)
	a := f.assertActive(t, Spec{})
	need(t, a, LayerHome)
	secret := "sgtestTOOL" + strconv.FormatInt(time.Now().UnixNano(), 36)
	var readable, hidden []string
	for p, body := range toolchainTrees {
		full := filepath.Join(f.home, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(strings.ReplaceAll(body, "SECRET", secret)), 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(body, "SECRET") {
			hidden = append(hidden, p)
		} else {
			readable = append(readable, p)
		}
	}
	sort.Strings(readable)
	r := f.run(t, Spec{}, `cd "$HOME" && grep -rs sgtestTOOL . ; for p in `+strings.Join(readable, " ")+`; do cat "$p" >/dev/null && echo "READ $p"; done`, 20*time.Second)
	if strings.Contains(r.out, secret) {
		t.Errorf("a toolchain credential file is readable:\n%s", r.out)
	}
	for _, p := range readable {
		if !strings.Contains(r.out, "READ "+p+"\n") {
			t.Errorf("%s is not readable inside:\n%s", p, r.out)
		}
	}
	if len(hidden) < 8 {
		t.Fatalf("only %d credential files planted", len(hidden))
	}
}

// TestHelperHoldsNoSecrets: the processes the command can see outside its
// own (the helper as pid 1, its parent) give away nothing of the user's
// git config: their memory cannot be read, or holds no secret.
func TestHelperHoldsNoSecrets(t *testing.T) {
	f := newFixture(t)
	a := f.assertActive(t, Spec{})
	need(t, a, LayerHome)
	need(t, a, LayerPidNS)
	secret := "sgtestMEM" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := os.WriteFile(filepath.Join(f.home, ".gitconfig"), []byte(gitConfigSecrets(secret)), 0o644); err != nil {
		t.Fatal(err)
	}
	// The needle is a file of the workspace: the script holds no secret.
	if err := os.WriteFile(filepath.Join(f.ws, "needle"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	r := f.run(t, Spec{}, `SGTEST_SECRETS_TOOL=procmem "$SGTEST_BIN" needle; git config --global user.email`, 30*time.Second)
	if strings.Contains(r.out, "FOUND") {
		t.Fatalf("a secret of the git config is in a process the command can read:\n%s", r.out)
	}
	if !strings.Contains(r.out, "1/mem: ") || !strings.Contains(r.out, "dev@example.com") {
		t.Fatalf("the probe did not run:\n%s", r.out)
	}
	if r.applied.Init == "go-init" && strings.Contains(r.out, "1/mem: clean") {
		t.Errorf("the helper's memory is readable (it must not be dumpable):\n%s", r.out)
	}
}
