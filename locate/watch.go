package locate

import (
	"os"
	"path/filepath"
	"sync"

	"bottle/claudemem"
)

// Watch keeps the listing of every project folder's transcripts for a
// process that lists them again and again (the server, at each search of
// every project): where the system tells of changes to files (inotify on
// Linux), a listing stats only the transcripts that changed since the
// last one, and lists again only the folders that did; elsewhere, or when
// the system cannot tell (too many changes at once, no watch left), it
// lists every folder as [AllSessions] does. A Watch is safe for
// concurrent use; Close releases it.
type Watch struct {
	env Env
	mu  sync.Mutex
	// dirs are the transcripts of each project folder, by file name.
	dirs map[string]map[string]SessionRef
	n    notifier // nil: none (every listing lists every folder)
	// relists counts the listings of every folder.
	relists int
}

// NewWatch returns a Watch of env's projects folder; it starts watching
// at its first listing.
func NewWatch(env Env) *Watch { return &Watch{env: env} }

// Close stops watching.
func (w *Watch) Close() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n != nil {
		err := w.n.close()
		w.n, w.dirs = nil, nil
		return err
	}
	return nil
}

// AllSessions is [AllSessions], from what the Watch keeps when it can.
func (w *Watch) AllSessions(stored []claudemem.SessionInfo) []SessionRef {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.update()
	byID := map[string]*SessionRef{}
	for _, files := range w.dirs {
		for _, r := range files {
			if prev, ok := byID[r.ID]; !ok || r.Modified.After(prev.Modified) {
				byID[r.ID] = &r
			}
		}
	}
	addStored(stored, byID)
	return sortRefs(byID)
}

// SessionsWith is [SessionsWith], from what the Watch keeps when it can.
func (w *Watch) SessionsWith(stored []claudemem.SessionInfo, cwd string) []SessionRef {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.update()
	byID := map[string]*SessionRef{}
	for _, dir := range ProjectDirs(w.env, cwd) {
		files, ok := w.dirs[dir]
		if !ok {
			// Not a folder of the projects folder's own (a symlink to one).
			files = map[string]SessionRef{}
			for _, r := range transcriptsIn(dir) {
				files[filepath.Base(r.Transcript)] = r
			}
		}
		for _, r := range files {
			if prev, ok := byID[r.ID]; !ok || r.Modified.After(prev.Modified) {
				byID[r.ID] = &r
			}
		}
	}
	addStored(stored, byID)
	return sortRefs(byID)
}

// update brings the listing up to date: the changes told since the last
// one, or every folder listed again.
func (w *Watch) update() {
	if w.dirs == nil || w.n == nil {
		w.relist(w.env.ProjectsDir())
		return
	}
	changes := map[[2]string]bool{}
	if !w.n.drain(w, changes) {
		w.relist(w.env.ProjectsDir())
		return
	}
	for c := range changes {
		w.changed(c[0], c[1])
		if w.n == nil {
			w.relist(w.env.ProjectsDir())
			return
		}
	}
}

// relist lists every project folder again, watching them first (a change
// made while they are listed is listed or told, or both).
func (w *Watch) relist(root string) {
	w.relists++
	if w.n != nil {
		w.n.close()
	}
	w.n = newNotifier(root)
	w.dirs = map[string]map[string]SessionRef{}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.IsDir() {
			w.listDir(filepath.Join(root, e.Name()))
		}
	}
}

// listDir lists one project folder again, watching it first.
func (w *Watch) listDir(dir string) {
	if w.n != nil && !w.n.watch(dir) {
		w.n.close()
		w.n = nil // every listing lists every folder
	}
	files := map[string]SessionRef{}
	for _, r := range transcriptsIn(dir) {
		files[filepath.Base(r.Transcript)] = r
	}
	w.dirs[dir] = files
}

// changed notes a change to the file name of the project folder dir (a
// name "" is the folder itself): the file is looked at again.
func (w *Watch) changed(dir, name string) {
	if name == "" {
		if _, err := os.Stat(dir); err != nil {
			delete(w.dirs, dir)
			return
		}
		w.listDir(dir)
		return
	}
	files := w.dirs[dir]
	if files == nil {
		w.listDir(dir)
		return
	}
	delete(files, name)
	if r, ok := transcriptRef(dir, name); ok {
		files[name] = r
	}
}

// notifier is the system's watch of the projects folder and its project
// folders.
type notifier interface {
	// watch starts watching the project folder dir (false: it cannot).
	watch(dir string) bool
	// drain notes in changes every project folder and file changed since
	// the last drain (a folder as its name and ""), and hands w the
	// project folders added and removed; false when the changes were not
	// all told (the folders must be listed again).
	drain(w *Watch, changes map[[2]string]bool) bool
	close() error
}
