package statusstore

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/roleout/roleout/status"
)

// previewCache keeps the previews folders of the branch's head last read
// for Previews: the forge posts the previews of several heads after one
// poll, and each needs the same folders.
type previewCache struct {
	mu    sync.Mutex
	head  string            // the head read; "" for none
	apps  []string          // whose folders files holds
	files map[string][]byte // by path
}

// Previews returns each of apps' preview of a pull request's ref (by
// its status.PreviewName), in the order of apps, skipping apps without
// one. It reads only the apps' previews folders, once per head of the
// branch: a call on the same head is answered from memory.
func (b *Branch) Previews(ctx context.Context, apps []string, ref string) ([]status.Preview, error) {
	head, err := b.Head(ctx)
	if err != nil {
		return nil, err
	}
	files, err := b.previews.get(head, apps, func() (map[string][]byte, error) {
		dirs := make([]string, len(apps))
		for i, app := range apps {
			dirs[i] = status.PreviewsDir(app)
		}
		reads, err := b.ReadEach(ctx, dirs)
		if err != nil {
			return nil, err
		}
		files := map[string][]byte{}
		for _, r := range reads {
			maps.Copy(files, r.Files)
		}
		return files, nil
	})
	if err != nil {
		return nil, err
	}
	var out []status.Preview
	for _, app := range apps {
		if p, ok := status.ReadPreview(files, app, status.PreviewName(ref)); ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// get returns the files kept for head and apps, or read's, kept.
func (c *previewCache) get(head string, apps []string, read func() (map[string][]byte, error)) (map[string][]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if head != "" && head == c.head && slices.Equal(apps, c.apps) {
		return c.files, nil
	}
	files, err := read()
	if err != nil {
		return nil, err
	}
	c.head, c.apps, c.files = head, append([]string(nil), apps...), files
	return files, nil
}
