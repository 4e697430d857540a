package statusstore

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// go-git's own pack writer inflates every object it receives into memory
// once the pack is complete (packfile.Parser.resolveDeltas), so one large
// blob anywhere on the fetched branch costs its size in heap, before a
// signature is checked or a path is looked at. The status branch's clones
// index their packs here instead: an object stored whole is hashed as it
// streams from disk and never held; only a delta is resolved in memory,
// and only when the object it makes fits maxObject.

// packDeltaDepth bounds a chain of deltas, as git's pack.depth does.
const packDeltaDepth = 4095

// packCacheBytes bounds the resolved objects kept to resolve the deltas
// made on them.
const packCacheBytes = 32 << 20

// incomingPack receives a fetched pack into a file of the storage,
// bounded, and indexes it on Close.
type incomingPack struct {
	store *statusStore
	f     *os.File
	left  int64
	err   error
}

func newIncomingPack(s *statusStore) (*incomingPack, error) {
	dir := filepath.Join(s.dir, "objects", "pack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "incoming-")
	if err != nil {
		return nil, err
	}
	return &incomingPack{store: s, f: f, left: s.max}, nil
}

func (p *incomingPack) Write(b []byte) (int, error) {
	if p.err == nil && int64(len(b)) > p.left {
		p.err = &LimitError{Branch: p.store.branch, What: "bytes", Limit: p.store.max, At: "the fetched objects"}
	}
	if p.err != nil {
		return 0, p.err
	}
	p.left -= int64(len(b))
	return p.f.Write(b)
}

// Close indexes the pack received, unless its writing failed.
func (p *incomingPack) Close() error {
	defer os.Remove(p.f.Name())
	defer p.f.Close()
	if p.err != nil {
		return p.err
	}
	if fi, err := p.f.Stat(); err != nil || fi.Size() == 0 {
		return err
	}
	sum, idx, err := indexPack(p.f, p.store.branch, p.store.maxObject)
	if err != nil {
		return err
	}
	base := filepath.Join(filepath.Dir(p.f.Name()), "pack-"+sum.String())
	out, err := os.Create(base + ".idx")
	if err != nil {
		return err
	}
	if _, err := idxfile.NewEncoder(out).Encode(idx); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	if err := os.Rename(p.f.Name(), base+".pack"); err != nil {
		return err
	}
	p.store.Reindex()
	return nil
}

// packObject is one object of a pack being indexed.
type packObject struct {
	offset int64
	crc    uint32
	hash   plumbing.Hash
	typ    plumbing.ObjectType // resolved: never a delta type
}

// packIndexer hashes the objects of one pack.
type packIndexer struct {
	sc        *packfile.Scanner
	branch    string
	maxObject int64
	objects   map[int64]*packObject
	byHash    map[plumbing.Hash]int64
	cache     map[int64][]byte
	cached    int64
}

// indexPack reads the pack in f and returns its checksum and index.
func indexPack(f io.ReadSeeker, branch string, maxObject int64) (plumbing.Hash, *idxfile.MemoryIndex, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return plumbing.ZeroHash, nil, err
	}
	ix := &packIndexer{sc: packfile.NewScanner(f), branch: branch, maxObject: maxObject,
		objects: map[int64]*packObject{}, byHash: map[plumbing.Hash]int64{}, cache: map[int64][]byte{}}
	_, count, err := ix.sc.Header()
	if err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("read the fetched pack: %w", err)
	}
	var deltas []int64
	for range count {
		oh, err := ix.sc.NextObjectHeader()
		if err != nil {
			return plumbing.ZeroHash, nil, fmt.Errorf("read the fetched pack: %w", err)
		}
		o := &packObject{offset: oh.Offset, typ: oh.Type}
		ix.objects[oh.Offset] = o
		if oh.Type.IsDelta() {
			// Resolved below, once every object it may be made on is known.
			_, o.crc, err = ix.sc.NextObject(io.Discard)
			deltas = append(deltas, oh.Offset)
		} else {
			hasher := plumbing.NewHasher(oh.Type, oh.Length)
			_, o.crc, err = ix.sc.NextObject(hasher)
			o.hash = hasher.Sum()
			ix.byHash[o.hash] = o.offset
		}
		if err != nil {
			return plumbing.ZeroHash, nil, fmt.Errorf("read the fetched pack: %w", err)
		}
	}
	sum, err := ix.sc.Checksum()
	if err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("read the fetched pack: %w", err)
	}
	if err := ix.resolve(deltas); err != nil {
		return plumbing.ZeroHash, nil, err
	}
	idx, err := ix.index(count, sum)
	return sum, idx, err
}

// resolve hashes the deltas at offsets; a delta made on an object named
// by hash waits until that object is resolved.
func (ix *packIndexer) resolve(offsets []int64) error {
	for len(offsets) > 0 {
		var waiting []int64
		for _, off := range offsets {
			data, typ, err := ix.content(off, 0)
			if err == errBaseUnknown {
				waiting = append(waiting, off)
				continue
			}
			if err != nil {
				return err
			}
			o := ix.objects[off]
			o.typ, o.hash = typ, plumbing.ComputeHash(typ, data)
			ix.byHash[o.hash] = off
		}
		if len(waiting) == len(offsets) {
			return fmt.Errorf("read the fetched pack: %d deltas are made on objects it does not hold", len(waiting))
		}
		offsets = waiting
	}
	return nil
}

// errBaseUnknown is a delta whose base is not resolved yet.
var errBaseUnknown = fmt.Errorf("delta base not known yet")

// content returns the object at off, inflated and with its deltas
// applied, and its type; depth counts the deltas above it.
func (ix *packIndexer) content(off int64, depth int) ([]byte, plumbing.ObjectType, error) {
	o := ix.objects[off]
	if data, ok := ix.cache[off]; ok {
		return data, o.typ, nil
	}
	if depth > packDeltaDepth {
		return nil, 0, fmt.Errorf("read the fetched pack: a chain of more than %d deltas", packDeltaDepth)
	}
	oh, err := ix.sc.SeekObjectHeader(off)
	if err != nil {
		return nil, 0, err
	}
	if err := ix.fits(oh.Length, "an object a delta is made on"); err != nil {
		return nil, 0, err
	}
	var buf bytes.Buffer
	if _, _, err := ix.sc.NextObject(&buf); err != nil {
		return nil, 0, err
	}
	if !oh.Type.IsDelta() {
		return ix.keep(off, buf.Bytes()), oh.Type, nil
	}
	base := oh.OffsetReference
	if oh.Type == plumbing.REFDeltaObject {
		b, ok := ix.byHash[oh.Reference]
		if !ok {
			return nil, 0, errBaseUnknown
		}
		base = b
	}
	if _, ok := ix.objects[base]; !ok {
		return nil, 0, fmt.Errorf("read the fetched pack: a delta at %d is made on no object", off)
	}
	if err := ix.fits(deltaTargetSize(buf.Bytes()), "an object made from a delta"); err != nil {
		return nil, 0, err
	}
	src, typ, err := ix.content(base, depth+1)
	if err != nil {
		return nil, 0, err
	}
	data, err := packfile.PatchDelta(src, buf.Bytes())
	if err != nil {
		return nil, 0, fmt.Errorf("read the fetched pack: %w", err)
	}
	return ix.keep(off, data), typ, nil
}

// keep caches the content of the object at off while the cache has room:
// a delta made on it then does not inflate it again.
func (ix *packIndexer) keep(off int64, data []byte) []byte {
	if ix.cached+int64(len(data)) <= packCacheBytes {
		ix.cache[off] = data
		ix.cached += int64(len(data))
	}
	return data
}

// fits refuses an object larger than maxObject before it is inflated.
func (ix *packIndexer) fits(size int64, what string) error {
	if size > ix.maxObject {
		return &LimitError{Branch: ix.branch, What: "bytes", Limit: ix.maxObject, At: fmt.Sprintf("%s, %d bytes, in the fetched objects", what, size)}
	}
	return nil
}

// deltaTargetSize reads the size of the object a delta makes from its
// header (the base's size, then the target's, as little-endian base-128).
func deltaTargetSize(delta []byte) int64 {
	var sizes [2]int64
	for i := range sizes {
		var shift uint
		for len(delta) > 0 {
			b := delta[0]
			delta = delta[1:]
			sizes[i] |= int64(b&0x7f) << shift
			shift += 7
			if b&0x80 == 0 || shift > 56 {
				break
			}
		}
	}
	return sizes[1]
}

// index returns the pack index of the objects hashed.
func (ix *packIndexer) index(count uint32, sum plumbing.Hash) (*idxfile.MemoryIndex, error) {
	w := new(idxfile.Writer)
	if err := w.OnHeader(count); err != nil {
		return nil, err
	}
	offsets := make([]int64, 0, len(ix.objects))
	for off := range ix.objects {
		offsets = append(offsets, off)
	}
	sort.Slice(offsets, func(i, j int) bool { return offsets[i] < offsets[j] })
	for _, off := range offsets {
		o := ix.objects[off]
		if err := w.OnInflatedObjectContent(o.hash, o.offset, o.crc, nil); err != nil {
			return nil, err
		}
	}
	if err := w.OnFooter(sum); err != nil {
		return nil, err
	}
	return w.Index()
}
