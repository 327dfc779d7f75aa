package runner

import (
	"slices"
	"testing"
)

func TestRegistryVarsPass(t *testing.T) {
	parent := []string{
		"GOPROXY=https://goproxy.mirror.test,direct",
		"GOSUMDB=sum.mirror.test",
		"GOPRIVATE=*.corp.test",
		"GONOSUMDB=*.corp.test",
		"npm_config_registry=https://npm.mirror.test/",
		"NPM_CONFIG_REGISTRY=https://npm2.mirror.test/",
		"PIP_INDEX_URL=https://pypi.mirror.test/simple",
		"CARGO_REGISTRIES_CORP_INDEX=sparse+https://crates.mirror.test/",
		"OTHER=x",
	}
	env, _ := BuildEnv(parent, EnvPolicy{})
	for _, kv := range parent[:len(parent)-1] {
		if !slices.Contains(env, kv) {
			t.Errorf("%s dropped", kv)
		}
	}
	if slices.Contains(env, "OTHER=x") {
		t.Error("OTHER passed")
	}
}

func TestRegistryVarsWithCredentialsDropped(t *testing.T) {
	for _, kv := range []string{
		"GOPROXY=https://user:pw@goproxy.mirror.test,direct",
		"GOPROXY=https://goproxy.mirror.test|https://tok@other.test",
		"PIP_INDEX_URL=https://__token__:abcdef@pypi.mirror.test/simple",
		"npm_config_registry=https://npm.mirror.test/?token=abcdef",
		"PIP_EXTRA_INDEX_URL=https://a.test/ https://u:p@b.test/",
	} {
		env, dropped := BuildEnv([]string{kv}, EnvPolicy{})
		for _, e := range env {
			if e == kv {
				t.Errorf("%s passed", kv)
			}
		}
		if len(dropped) != 1 {
			t.Errorf("%s: value not kept for redaction (%v)", kv, dropped)
		}
	}
}
