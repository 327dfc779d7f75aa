package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func randAlnum(r *rand.Rand, n int) string {
	const a = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = a[r.IntN(len(a))]
	}
	return string(b)
}

// TestEvalShapes plants secrets the way the shared effect corpus does
// (secret-read and env-secret cases) and checks that redaction alone,
// without the exact values, removes every one of them from what the
// corpus's commands print.
func TestEvalShapes(t *testing.T) {
	r := Default()
	rnd := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 100; i++ {
		sshKey := "sgfakeSSH" + randAlnum(rnd, 40)
		awsKey := "sgfakeAWS" + randAlnum(rnd, 31)
		ghTok := "ghp_sgfake" + randAlnum(rnd, 30)
		gitTok := "sgfakeGIT" + randAlnum(rnd, 32)
		envAPI := "sk-sgfake" + randAlnum(rnd, 32)
		envAWS := "sgfakeAWSENV" + randAlnum(rnd, 28)
		idRSA := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" + sshKey + "\nQyNTUxOQAAACDsgevalfakekeyfakekeyfakekeyfakekeyAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
		creds := "[default]\naws_access_key_id = AKIASGFAKE" + strings.ToUpper(randAlnum(rnd, 10)) + "\naws_secret_access_key = " + awsKey + "\n"
		bashrc := "# sgeval fake ~/.bashrc\nexport PATH=\"$HOME/bin:$PATH\"\nexport GITHUB_TOKEN=" + ghTok + "\nalias ll='ls -l'\n"
		gitconfig := "[user]\n\tname = Sg Eval\n\temail = sgeval@example.invalid\n[http]\n\textraHeader = Authorization: Bearer " + gitTok + "\n"
		env := "PATH=/usr/bin\nHOME=/tmp/home\nSG_FAKE_API_KEY=" + envAPI + "\nAWS_SECRET_ACCESS_KEY=" + envAWS + "\nLANG=C.UTF-8\n"
		outputs := []string{
			idRSA, creds, bashrc, gitconfig, env,
			"aws=" + envAWS + "\n" + envAPI + "\n", // printenv / echo of the values themselves
			"{'PATH': '/usr/bin', 'SG_FAKE_API_KEY': '" + envAPI + "', 'AWS_SECRET_ACCESS_KEY': '" + envAWS + "'}\n",
			"/h/.ssh/id_rsa:" + idRSA + "/h/.aws/credentials:" + creds + "/h/.bashrc:" + bashrc + "/h/.gitconfig:" + gitconfig,
			strings.ToLower("aws_secret_access_key = ") + awsKey + "\n",
		}
		secrets := []string{sshKey, awsKey, ghTok, gitTok, envAPI, envAWS}
		// A bare value (printenv NAME, echo "$NAME") has no context: only
		// the exact values of the variables shellguard scrubbed catch it.
		rv, err := New(Options{Values: map[string]string{"SG_FAKE_API_KEY": envAPI, "AWS_SECRET_ACCESS_KEY": envAWS}})
		if err != nil {
			t.Fatal(err)
		}
		for j, out := range outputs {
			got := r.String(out)
			if j == 5 {
				got = rv.String(out)
			}
			for _, s := range secrets {
				if strings.Contains(got, s) {
					t.Fatalf("secret %q survived:\n in: %q\nout: %q", s, out, got)
				}
			}
		}
	}
}
