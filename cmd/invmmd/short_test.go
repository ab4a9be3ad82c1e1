package main

import (
	"os"
	"testing"

	"github.com/invmmd/invmmd/invmmd/tmnist"
)

// skipLong skips a test that trains for seconds to minutes when go test runs with -short
// (make test-short, the edit loop); make test runs it.
func skipLong(t *testing.T, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skips " + what)
	}
}

// mnistUnavailable returns why the tests cannot read MNIST, or "" when they can: under
// -short they never do (make test-short runs no test that needs fetched data), otherwise
// when its files are missing. With INVMMD_REQUIRE_DATA=1 (make test, CI) missing files
// fail the test instead.
func mnistUnavailable(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		return "-short runs no test that reads MNIST"
	}
	if err := tmnist.Available(tmnist.DefaultConfig()); err != nil {
		if os.Getenv(tmnist.RequireDataEnv) == "1" {
			t.Fatalf("%s=1 and the data is missing: %v", tmnist.RequireDataEnv, err)
		}
		return "data missing (set " + tmnist.RequireDataEnv + "=1 to fail instead): " + err.Error()
	}
	return ""
}
