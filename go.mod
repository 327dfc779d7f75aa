module github.com/shellguard/shellguard

go 1.26.0

require (
	github.com/creack/pty v1.1.24 // indirect
	github.com/landlock-lsm/go-landlock v0.11.0 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	mvdan.cc/sh/v3 v3.14.1
)
