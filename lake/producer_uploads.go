package lake

import (
	"fmt"
	"sync"

	iceio "github.com/apache/iceberg-go/io"
)

// uploads write a change's manifests and manifest list in the background.
// Each is encoded in memory first, which gives what the next file needs
// of it (a manifest's length, for the list), so the writes need not wait
// for each other: on object storage every PUT is a round trip, and a
// commit that rewrites manifests made several in a row. A stage ends only
// once every upload has (wait), so the catalog never sees a snapshot
// whose files are not all written, and a failed stage removes its files
// after the last write to them.
type uploads struct {
	wg  sync.WaitGroup
	mu  sync.Mutex
	err error
}

// put writes data to path in the background.
func (u *uploads) put(fs iceio.WriteFileIO, path string, data []byte) {
	u.wg.Go(func() {
		if err := writeBytes(fs, path, data); err != nil {
			u.mu.Lock()
			defer u.mu.Unlock()
			if u.err == nil {
				u.err = err
			}
		}
	})
}

// wait waits for every upload and returns the first error.
func (u *uploads) wait() error {
	u.wg.Wait()
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.err
}

func writeBytes(fs iceio.WriteFileIO, path string, data []byte) error {
	f, err := fs.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
