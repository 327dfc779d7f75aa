package world

import "testing"

var testOpts = Options{Workspace: "/workspace", Home: "/home/user"}

func TestClassify(t *testing.T) {
	cases := map[string]Class{
		"/home/user/.ssh/id_rsa":                      ClassCredential,
		"/home/user/.ssh/id_rsa.pub":                  ClassHome,
		"/home/user/.ssh/known_hosts":                 ClassHome,
		"/home/user/.config/git/credentials":          ClassCredential,
		"/home/user/.cache/huggingface/token":         ClassCredential,
		"/home/user/.config/sops/age/keys.txt":        ClassCredential,
		"/home/user/.config/newtool/token":            ClassCredential,
		"/srv/app/db-credentials.json":                ClassCredential,
		"/workspace/.env":                             ClassCredential,
		"/workspace/.env.production":                  ClassCredential,
		"/workspace/.env.example":                     ClassWorkspace,
		"/proc/1/environ":                             ClassCredential,
		"/proc/self/environ":                          ClassCredential,
		"/etc/ssl/private/server.key":                 ClassCredential,
		"/etc/kubernetes/admin.conf":                  ClassCredential,
		"/etc/shadow":                                 ClassCredential,
		"/etc/passwd":                                 ClassSystem,
		"/home/user/.bashrc":                          ClassPersistence,
		"/home/user/.bash_aliases":                    ClassPersistence,
		"/home/user/.bashrc.d/x.sh":                   ClassPersistence,
		"/home/user/.config/fish/conf.d/x.fish":       ClassPersistence,
		"/home/user/.config/environment.d/x.conf":     ClassPersistence,
		"/usr/lib/python3/dist-packages/evil.pth":     ClassPersistence,
		"/workspace/.venv/lib/site-packages/evil.pth": ClassPersistence,
		"/etc/cron.d/job":                             ClassPersistence,
		"/etc/systemd/system/x.service":               ClassPersistence,
		"/home/user/.ssh/authorized_keys":             ClassPersistence,
		"/home/user/.npmrc":                           ClassCredential,
		"/home/user/.config/pip/pip.conf":             ClassRegistry,
		"/home/user/.config/go/env":                   ClassRegistry,
		"/home/user/.cargo/config.toml":               ClassRegistry,
		"/home/user/.gemrc":                           ClassRegistry,
		"/other/repo/.git/config":                     ClassOtherGit,
		"/workspace/.git/config":                      ClassRepoGit,
		"/workspace/.git":                             ClassRepoGit,
		"/workspace/vendor/x/.git/hooks/pre-commit":   ClassOtherGit,
		"/usr/bin/ls":                                 ClassSystem,
		"/dev/sda":                                    ClassDevice,
		"/dev/null":                                   ClassOther,
		"/tmp/x":                                      ClassTemp,
		"/workspace/src/main.go":                      ClassWorkspace,
		"/home/user/notes.txt":                        ClassHome,
	}
	for p, want := range cases {
		if got := Classify(p, testOpts).Class; got != want {
			t.Errorf("%s: %v, want %v (%s)", p, got, want, Classify(p, testOpts).What)
		}
	}
}

func TestMetadataHost(t *testing.T) {
	yes := []string{"169.254.169.254", "2852039166", "0xa9fea9fe", "0251.0376.0251.0376", "0xa9.0xfe.0xa9.0xfe",
		"169.254.43518", "::ffff:169.254.169.254", "::ffff:a9fe:a9fe", "fd00:ec2::254", "metadata.google.internal",
		"METADATA.GOOGLE.INTERNAL.", "169.254.170.2", "100.100.100.200", "instance-data"}
	no := []string{"example.com", "10.0.0.1", "127.0.0.1", "169.253.1.1", "1.2.3.4", "::1", ""}
	for _, h := range yes {
		if !MetadataHost(h) {
			t.Errorf("%s: not a metadata host", h)
		}
	}
	for _, h := range no {
		if MetadataHost(h) {
			t.Errorf("%s: metadata host", h)
		}
	}
	for _, d := range []string{"http://169.254.169.254/latest/", "http://[::ffff:a9fe:a9fe]/x", "http://user@2852039166:80/"} {
		if !MetadataHost(HostOf(d)) {
			t.Errorf("%s: host %q not metadata", d, HostOf(d))
		}
	}
}

func TestClassifyPattern(t *testing.T) {
	cases := map[string]Class{".*shrc": ClassPersistence, ".bash*": ClassCredential /* .bash_history */, ".profil*": ClassPersistence, "id_*": ClassCredential,
		".env*": ClassCredential, "*.xml": ClassOther, "*.yaml": ClassOther, "*.go": ClassOther}
	for pat, want := range cases {
		if got := ClassifyPattern("/home/user", pat, testOpts).Class; got != want {
			t.Errorf("%s: %v, want %v", pat, got, want)
		}
	}
	if got := ClassifyPatternAs("/home/user", ".bash*", ClassPersistence, testOpts).Class; got != ClassPersistence {
		t.Errorf(".bash* as persistence: %v", got)
	}
}

func TestLoopback(t *testing.T) {
	for _, h := range []string{"localhost", "127.0.0.1", "127.1", "2130706433", "::1", "0.0.0.0", "app.localhost"} {
		if !Loopback(h) {
			t.Errorf("%s: not loopback", h)
		}
	}
	for _, h := range []string{"example.com", "10.0.0.1", "", "169.254.169.254"} {
		if Loopback(h) {
			t.Errorf("%s: loopback", h)
		}
	}
}

func TestFloorPath(t *testing.T) {
	for _, p := range []string{"/", "/etc", "/usr", "/usr/lib", "/var/log", "/home/user", "/boot"} {
		if !FloorPath(p, testOpts) {
			t.Errorf("%s: not floor", p)
		}
	}
	for _, p := range []string{"/workspace", "/tmp/x", "/home/user/project", "/usr/lib/x/y", "/opt/app/build/cache"} {
		if FloorPath(p, testOpts) {
			t.Errorf("%s: floor", p)
		}
	}
}

func TestSecretName(t *testing.T) {
	for n, want := range map[string]bool{
		"AWS_SECRET_ACCESS_KEY": true, "GH_TOKEN": true, "DATABASE_*": true, "//registry.npmjs.org/:_authToken": true,
		"AWS_*": true, "TF_VAR_*": true, "PATH": false, "GOFLAGS": false, "GO*": false, "HOME": false,
	} {
		if got := SecretName(n); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", n, got, want)
		}
	}
}
