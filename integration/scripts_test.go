package integration_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// repoRoot returns the repository's root: the integration module lives in it.
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	require.NoError(t, err)
	return filepath.Dir(wd)
}

// fakeGo is a stand-in for the go command in front of `make fuzz`: it lists the
// fuzz targets of a package named after them and runs each as its name says,
// recording every run in $FAKE_GO_STATE/runs.
const fakeGo = `#!/usr/bin/env bash
set -u
state=${FAKE_GO_STATE:?}
if [ "$1 $2" = "test -list" ]; then
	case $(basename "$4") in
	one) printf 'FuzzPass\nFuzzCrash\n' ;;
	two) printf 'FuzzRaceOnce\nFuzzRaceTwice\nFuzzBroken\n' ;;
	three) printf 'FuzzPass\nFuzzRaceOnce\n' ;;
	esac
	echo "ok  	$4	0.01s"
	exit 0
fi
pkg=$2
target=$(printf '%s\n' "$@" | sed -n 's/^\^\(Fuzz[A-Za-z]*\)\$$/\1/p')
echo "$pkg $target" >>"$state/runs"
runs=$(grep -c "^$pkg $target\$" "$state/runs")
race() { printf 'fuzz: elapsed: 1s, execs: 100 (100/sec)\n--- FAIL: %s (1.00s)\n    context deadline exceeded\nFAIL\n' "$target"; exit 1; }
case $target in
FuzzPass) echo PASS ;;
FuzzCrash)
	mkdir -p "$pkg/testdata/fuzz/FuzzCrash"
	echo 'go test fuzz v1' >"$pkg/testdata/fuzz/FuzzCrash/0123abcd"
	printf -- '--- FAIL: FuzzCrash (0.10s)\n    Failing input written to testdata/fuzz/FuzzCrash/0123abcd\n    To re-run:\n    go test -run=FuzzCrash/0123abcd\nFAIL\n'
	exit 1 ;;
FuzzRaceOnce) if [ "$runs" -eq 1 ]; then race; fi; echo PASS ;;
FuzzRaceTwice) race ;;
FuzzBroken) echo "./x_test.go:1:1: expected 'package', found 'EOF'"; exit 1 ;;
esac
`

// TestMakeFuzzRunsEveryTargetAndTellsCrashersFromTheRace runs `make fuzz` with a
// fake go command: every target runs whatever fails before it, each is reported,
// a crasher is told from the fuzzing coordinator's "context deadline exceeded"
// race, which is run once more, and the exit status says whether any failed.
func TestMakeFuzzRunsEveryTargetAndTellsCrashersFromTheRace(t *testing.T) {
	dir := t.TempDir()
	goCmd := filepath.Join(dir, "go")
	require.NoError(t, os.WriteFile(goCmd, []byte(fakeGo), 0o755))
	pkg := func(name string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.Mkdir(p, 0o755))
		return p
	}
	one, two, three := pkg("one"), pkg("two"), pkg("three")

	makeFuzz := func(t *testing.T, packages ...string) (string, int, []string) {
		t.Helper()
		state := t.TempDir()
		cmd := exec.Command("make", "-s", "-C", repoRoot(t), "fuzz",
			"GO="+goCmd, "FUZZTIME=1s", "FUZZ_PACKAGES="+strings.Join(packages, " "))
		cmd.Env = append(os.Environ(), "FAKE_GO_STATE="+state)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		runs, err := os.ReadFile(filepath.Join(state, "runs"))
		require.NoError(t, err)
		return out.String(), code, strings.Split(strings.TrimSpace(string(runs)), "\n")
	}

	t.Run("failures", func(t *testing.T) {
		out, code, runs := makeFuzz(t, one, two)
		require.NotZero(t, code, out)
		require.Equal(t, []string{
			one + " FuzzPass", one + " FuzzCrash",
			two + " FuzzRaceOnce", two + " FuzzRaceOnce", two + " FuzzRaceTwice", two + " FuzzRaceTwice", two + " FuzzBroken",
		}, runs, "every target runs; a race is run once more, a crasher is not")
		_, summary, ok := strings.Cut(out, "fuzz results, 1s per target:\n")
		require.True(t, ok, out)
		require.Equal(t, strings.Join([]string{
			"  PASS  " + one + " FuzzPass",
			"  FAIL  " + one + " FuzzCrash: crasher " + one + "/testdata/fuzz/FuzzCrash/0123abcd; reproduce with: go test " + one + " -run 'FuzzCrash/0123abcd'",
			`  PASS  ` + two + ` FuzzRaceOnce (after a rerun: the first run hit the fuzzing coordinator's race, "context deadline exceeded" without a crasher)`,
			`  FAIL  ` + two + ` FuzzRaceTwice: "context deadline exceeded" without a crasher twice in a row`,
			"  FAIL  " + two + " FuzzBroken: failed without a crasher (see its output above)",
			"5 targets, 3 failed",
			"",
		}, "\n"), summary[:strings.Index(summary, "3 failed\n")+len("3 failed\n")])
		require.FileExists(t, filepath.Join(one, "testdata/fuzz/FuzzCrash/0123abcd"), "the crasher is kept")
	})

	t.Run("a race that a rerun passes is no failure", func(t *testing.T) {
		out, code, runs := makeFuzz(t, three)
		require.Zero(t, code, out)
		require.Equal(t, []string{three + " FuzzPass", three + " FuzzRaceOnce", three + " FuzzRaceOnce"}, runs)
		require.Contains(t, out, "2 targets, 0 failed\n")
	})
}

// fakeDocker answers `docker info` once fakeDockerd runs, and has every image.
const fakeDocker = `#!/usr/bin/env bash
case $1 in
info) [ -f "$FAKE_DOCKER_STATE/running" ] ;;
image) exit 0 ;;
*) echo "fake docker: unexpected $*" >&2; exit 1 ;;
esac
`

// fakeDockerd records its pid, says it runs, and stays, as the daemon would, with
// whatever descriptors it was given.
const fakeDockerd = `#!/usr/bin/env bash
echo $$ >"$FAKE_DOCKER_STATE/pid"
touch "$FAKE_DOCKER_STATE/running"
exec sleep 300
`

// TestDockerdStartsDetachedFromTheCaller runs `scripts/dynamodb-local.sh image`
// under flock, with a fake docker whose daemon is not running: the script starts
// the (fake) dockerd, which must hold none of the caller's descriptors, the lock
// included, and run in a session of its own.
func TestDockerdStartsDetachedFromTheCaller(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("the script starts dockerd as root: run as root")
	}
	for _, tool := range []string{"flock", "setsid"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	dir := t.TempDir()
	bin, state := filepath.Join(dir, "bin"), filepath.Join(dir, "state")
	require.NoError(t, os.Mkdir(bin, 0o755))
	require.NoError(t, os.Mkdir(state, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "docker"), []byte(fakeDocker), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "dockerd"), []byte(fakeDockerd), 0o755))
	lock, daemonLog := filepath.Join(dir, "lock"), filepath.Join(dir, "dockerd.log")

	cmd := exec.Command("flock", lock, filepath.Join(repoRoot(t), "scripts", "dynamodb-local.sh"), "image")
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "FAKE_DOCKER_STATE="+state,
		"RYNO_DOCKERD_LOG="+daemonLog, "RYNO_UPSTREAM_IMAGE=fake/dynamodb-local")
	cmd.Stdin = strings.NewReader("") // a pipe: the daemon must not keep it
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Cleanup(func() { // the fake daemon only: it is this test's
		if b, err := os.ReadFile(filepath.Join(state, "pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	require.NoError(t, err, stderr.String())
	require.Equal(t, "fake/dynamodb-local\n", string(out))
	require.Contains(t, stderr.String(), "starting dockerd")

	b, err := os.ReadFile(filepath.Join(state, "pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)

	require.NoError(t, exec.Command("flock", "--nonblock", lock, "true").Run(),
		"the caller's lock is free once the script is done, with the daemon still running")

	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	require.NoError(t, err)
	targets := map[string]string{}
	for _, fd := range fds {
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		require.NoError(t, err)
		targets[fd.Name()] = target
	}
	require.Equal(t, map[string]string{"0": "/dev/null", "1": daemonLog, "2": daemonLog}, targets,
		"the daemon has standard input from /dev/null, its log, and nothing of the caller's")

	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	require.Equal(t, strconv.Itoa(pid), fields[3], "the daemon leads a session of its own (setsid)")
}
