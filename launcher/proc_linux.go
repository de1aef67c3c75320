package launcher

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"github.com/org/agentevolver/internal/fsutil"
)

// processStart returns the start time of process pid in clock ticks since
// boot (field 22 of /proc/PID/stat), which tells a process from a later
// one with the same pid.
func processStart(pid int) (string, error) {
	f, err := procStat(pid)
	if err != nil {
		return "", err
	}
	return f[19], nil // fields after "(comm)": state is index 0, starttime index 19
}

// procStat returns the fields of /proc/PID/stat after the command name.
func procStat(pid int) ([]string, error) {
	data, err := fsutil.ReadFile("/proc/"+strconv.Itoa(pid)+"/stat", 4096)
	if err != nil {
		return nil, err
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, os.ErrInvalid
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return nil, os.ErrInvalid
	}
	return f, nil
}

// groupMembers returns the live processes of rec's process group that
// carry its token in their environment: the service and the children it
// started, and never an unrelated process that has since taken the pid
// or the group id. Zombies are not counted.
func groupMembers(rec Record) []int {
	if !groupExists(rec.PGID) {
		return nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(TokenVar + "=" + rec.Token)
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, err := procStat(pid)
		if err != nil || f[0] == "Z" || f[2] != strconv.Itoa(rec.PGID) {
			continue
		}
		env, err := fsutil.ReadFile("/proc/"+e.Name()+"/environ", 1<<20)
		if err != nil {
			continue
		}
		for v := range bytes.SplitSeq(env, []byte{0}) {
			if bytes.Equal(v, want) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}
