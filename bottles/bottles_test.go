package bottles

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"bottle/ident"
)

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bottles")
	path, err := Write(dir, "s1", []byte("one"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir, "s1", []byte("two")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "two" {
		t.Fatalf("bottle = %q, %v; want %q", got, err, "two")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("bottles dir holds %d entries, want 1 (no temp files)", len(entries))
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("bottle mode = %v, want 0600", fi.Mode().Perm())
		}
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
			t.Errorf("bottles dir mode = %v, want 0700", fi.Mode().Perm())
		}
	}
	if _, err := Write(dir, "../evil", []byte("x")); !errors.Is(err, ident.ErrBadSession) {
		t.Errorf("Write(../evil) error = %v, want ident.ErrBadSession", err)
	}
}

// TestWriteBottleFailureKeepsPrevious: when the bottles "dir" cannot take a
// file (a path below a regular file — real even for root), the write fails
// cleanly; when the rename target is a directory, the old content survives.
func TestWriteBottleFailureKeepsPrevious(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(filepath.Join(file, "bottles"), "s1", []byte("x")); err == nil {
		t.Error("WriteBottle below a regular file succeeded")
	}
	dir := filepath.Join(base, "b")
	if err := os.MkdirAll(filepath.Join(dir, "s2.md"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir, "s2", []byte("x")); err == nil {
		t.Error("WriteBottle over a directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("dir holds %d entries after a failed write, want 1", len(entries))
	}
}

func TestArchive(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if _, err := Write(dir, "s1", []byte("bottle")); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "archive", "20260101T000000Z-old.md")
	recent := filepath.Join(dir, "archive", "20260220T000000Z-recent.md")
	foreign := filepath.Join(dir, "archive", "notes.txt")
	os.MkdirAll(filepath.Dir(old), 0o700)
	for _, p := range []string{old, recent, foreign} {
		os.WriteFile(p, []byte("x"), 0o600)
	}
	got, err := Archive(dir, "s1", now, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "archive", "20260301T120000Z-s1.md")
	if got != want {
		t.Errorf("Archive = %q, want %q", got, want)
	}
	if b, err := os.ReadFile(want); err != nil || string(b) != "bottle" {
		t.Errorf("archived bottle = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "s1.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("bottle still in place after archive: %v", err)
	}
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Error("archive older than 30 days was not pruned")
	}
	for _, p := range []string{recent, foreign} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was pruned: %v", p, err)
		}
	}
	if got, err := Archive(dir, "missing", now, 0); err != nil || got != "" {
		t.Errorf("Archive(missing) = %q, %v; want \"\", nil", got, err)
	}
}

func writeFile(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		tb.Fatal(err)
	}
}

func TestWriteBottleRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, ".s1.md.tmp-123")
	fresh := filepath.Join(dir, ".s1.md.tmp-456")
	writeFile(t, stale, "partial")
	writeFile(t, fresh, "partial")
	old := time.Now().Add(-2 * staleTemp)
	os.Chtimes(stale, old, old)
	if _, err := Write(dir, "s1", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Error("a stale temp file survived the next write")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a fresh temp file (a concurrent writer's) was removed")
	}
}

func TestArchiveSameSecond(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var got []string
	for i := 0; i < 3; i++ {
		Write(dir, "s1", []byte{byte('a' + i)})
		p, err := Archive(dir, "s1", now, 0)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(p))
	}
	want := []string{"20260301T120000Z-s1.md", "20260301T120000Z-s1-2.md", "20260301T120000Z-s1-3.md"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("archives = %v, want %v", got, want)
	}
}

func TestRelativeFolderRefused(t *testing.T) {
	for _, dir := range []string{"", "relative/bottles"} {
		if _, err := Write(dir, "s1", []byte("x")); err == nil {
			t.Errorf("Write(%q) succeeded", dir)
		}
	}
}

// TestArchiveSymlinkRefused: an archive folder that is a symlink is neither
// written into nor pruned: /clear fails with ErrArchiveNotFolder (the hook
// logs it), the bottle stays, and an old archive-named file in the target
// survives.
func TestArchiveSymlinkRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	outside := t.TempDir()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	victim := filepath.Join(outside, "20250101T000000Z-victim.md")
	writeFile(t, victim, "not bottle's")
	if err := os.Symlink(outside, filepath.Join(dir, "archive")); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir, "s1", []byte("bottle")); err != nil {
		t.Fatal(err)
	}
	if _, err := Archive(dir, "s1", now, 0); !errors.Is(err, ErrArchiveNotFolder) {
		t.Errorf("Archive into a symlinked folder: err %v, want ErrArchiveNotFolder", err)
	}
	if err := Prune(dir, now, Retention); !errors.Is(err, ErrArchiveNotFolder) {
		t.Errorf("Prune of a symlinked folder: err %v, want ErrArchiveNotFolder", err)
	}
	if err := CheckArchive(dir); !errors.Is(err, ErrArchiveNotFolder) {
		t.Errorf("CheckArchive: err %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "s1.md")); err != nil || string(b) != "bottle" {
		t.Errorf("the bottle moved: %q, %v", b, err)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 || entries[0].Name() != filepath.Base(victim) {
		t.Errorf("the symlink's target changed: %v", entries)
	}
}

// TestPruneOnlyItsOwnFiles: pruning removes regular files named like an
// archive and nothing else: not a symlink named like one (nor its target),
// not a folder, not a file whose name only starts like one.
func TestPruneOnlyItsOwnFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	archive := filepath.Join(dir, "archive")
	if err := os.Mkdir(archive, 0o700); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "target.md")
	writeFile(t, outside, "outside")
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	old := "20250101T000000Z-"
	writeFile(t, filepath.Join(archive, old+"s1.md"), "x")
	writeFile(t, filepath.Join(archive, old+"s1-2.md"), "x")
	writeFile(t, filepath.Join(archive, old+".md"), "x")
	writeFile(t, filepath.Join(archive, old+"a b.md"), "x")
	writeFile(t, filepath.Join(archive, "20250101T000000Zx.md"), "x")
	if err := os.Symlink(outside, filepath.Join(archive, old+"link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(archive, old+"folder.md"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Prune(dir, now, Retention); err != nil {
		t.Fatal(err)
	}
	var got []string
	entries, _ := os.ReadDir(archive)
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := []string{old + ".md", old + "a b.md", old + "folder.md", old + "link.md", "20250101T000000Zx.md"}
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("after pruning the archive holds\n%q\nwant\n%q", got, want)
	}
	if b, err := os.ReadFile(outside); err != nil || string(b) != "outside" {
		t.Errorf("the symlink's target changed: %q, %v", b, err)
	}
}
