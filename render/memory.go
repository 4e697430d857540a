package render

import (
	"os"
	"strconv"
	"strings"
)

// groupEvery is how many memory samples of the child alone go to one of
// its whole process group, which reads every process's stat.
const groupEvery = 5

// residentBytes returns the resident memory of process pid, 0 when it
// cannot be read.
func residentBytes(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data))
	if len(fields) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(fields[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// groupResidentBytes returns the resident memory of every process of
// process group pgid: a sandbox child (its own group) and what it runs,
// helm and exec functions, whose memory counts against the render's
// limit as the child's does.
func groupResidentBytes(pgid int) int64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	var total int64
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone since the listing
		}
		// pid (comm) state ppid pgrp ... rss is the 24th field; comm may
		// hold spaces and parentheses, so fields count from its last ")".
		i := strings.LastIndexByte(string(data), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 22 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		pages, _ := strconv.ParseInt(f[21], 10, 64)
		total += pages * int64(os.Getpagesize())
	}
	return total
}
