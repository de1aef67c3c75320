package gobackend

import (
	"strings"
	"testing"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/distributed"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

func newDevicesBackend(t *testing.T, config string) backends.Backend {
	t.Helper()
	b, err := New(config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Finalize)
	return b
}

func TestDevicesOption(t *testing.T) {
	b := newDevicesBackend(t, "devices=3")
	if b.NumDevices() != 3 || b.DeviceDescription(2) != "device#2" {
		t.Fatalf("NumDevices %d, %q", b.NumDevices(), b.DeviceDescription(2))
	}
	for _, bad := range []string{"devices=0", "devices=x", "devices=100000"} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
	buf, err := b.BufferFromFlatData(2, []float32{1, 2}, shapes.Make(dtypes.Float32, 2))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := b.BufferDeviceNum(buf); d != 2 {
		t.Fatalf("buffer on device %d, want 2", d)
	}
	if _, err := b.BufferFromFlatData(3, []float32{1}, shapes.Make(dtypes.Float32, 1)); err == nil {
		t.Fatal("a buffer on device 3 of 3 was created")
	}
}

// TestSPMDAllReduce runs an SPMD program on four virtual devices: every
// reduction over all replicas and over one axis of a 2x2 mesh.
func TestSPMDAllReduce(t *testing.T) {
	for _, mode := range []string{"ops_sequential", "ops_parallel"} {
		t.Run(mode, func(t *testing.T) {
			b := newDevicesBackend(t, "devices=4,"+mode)
			mesh, err := distributed.NewDeviceMesh([]int{4}, []string{"data"})
			if err != nil {
				t.Fatal(err)
			}
			exec, err := graph.NewExec(b, func(x *graph.Node) []*graph.Node {
				d := x.Graph().Distributed()
				return []*graph.Node{
					d.AllReduceOne(x, backends.ReduceOpSum),
					d.AllReduceOne(x, backends.ReduceOpMax),
					d.AllReduceOne(x, backends.ReduceOpMin),
					d.AllReduceOne(x, backends.ReduceOpProduct),
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			exec.SPMD(mesh)
			in := []any{[]float32{1, -2}, []float32{3, 5}, []float32{-1, 2}, []float32{2, 1}}
			outs, err := exec.Exec(in...)
			if err != nil {
				t.Fatal(err)
			}
			if len(outs) != 16 {
				t.Fatalf("%d outputs, want 4 devices x 4", len(outs))
			}
			want := [][]float32{{5, 6}, {3, 5}, {-1, -2}, {-6, -20}}
			for d := range 4 {
				for k := range 4 {
					got := tensors.MustCopyFlatData[float32](outs[d*4+k])
					if got[0] != want[k][0] || got[1] != want[k][1] {
						t.Errorf("device %d output %d = %v, want %v", d, k, got, want[k])
					}
				}
			}
		})
	}
}

func TestSPMDAllReduceAlongAxis(t *testing.T) {
	b := newDevicesBackend(t, "devices=4")
	mesh, err := distributed.NewDeviceMesh([]int{2, 2}, []string{"data", "model"})
	if err != nil {
		t.Fatal(err)
	}
	exec, err := graph.NewExec(b, func(x *graph.Node) *graph.Node {
		return x.Graph().Distributed().Along("data").AllReduceOne(x, backends.ReduceOpSum)
	})
	if err != nil {
		t.Fatal(err)
	}
	exec.SPMD(mesh)
	outs, err := exec.Exec(int32(1), int32(10), int32(100), int32(1000))
	if err != nil {
		t.Fatal(err)
	}
	// Devices are laid out row-major over (data, model): "data" groups are {0, 2} and {1, 3}.
	want := []int32{101, 1010, 101, 1010}
	for d, o := range outs {
		if got := tensors.ToScalar[int32](o); got != want[d] {
			t.Errorf("device %d = %d, want %d", d, got, want[d])
		}
	}
}

// TestSPMDReplicaFailure: a replica that fails before a collective makes the
// others give up instead of waiting for it forever.
func TestSPMDReplicaFailure(t *testing.T) {
	be := newDevicesBackend(t, "devices=2")
	builder := be.Builder("failing")
	if err := builder.DistributedSPMD(2); err != nil {
		t.Fatal(err)
	}
	shape := shapes.Make(dtypes.Float32, 2)
	p, err := builder.Parameter("x", shape, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := builder.AllReduce([]backends.Op{p}, backends.ReduceOpSum, nil)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := builder.Compile(sum, nil)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := be.BufferFromFlatData(0, []float32{1, 2}, shape)
	bad, _ := be.BufferFromFlatData(1, []float32{1, 2, 3}, shapes.Make(dtypes.Float32, 3))
	done := make(chan error, 1)
	go func() {
		_, err := exe.Execute([]backends.Buffer{good, bad}, nil, 0)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "replica 1") {
			t.Fatalf("err = %v, want replica 1's shape error", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Execute did not return: the healthy replica waits for the failed one")
	}
	// The same executable still runs with good inputs.
	good2, _ := be.BufferFromFlatData(1, []float32{10, 20}, shape)
	outs, err := exe.Execute([]backends.Buffer{good, good2}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for d, o := range outs {
		flat := make([]float32, 2)
		if err := be.BufferToFlatData(o, flat); err != nil {
			t.Fatal(err)
		}
		if flat[0] != 11 || flat[1] != 22 {
			t.Errorf("device %d = %v", d, flat)
		}
		if dev, _ := be.BufferDeviceNum(o); int(dev) != d {
			t.Errorf("output of replica %d on device %d", d, dev)
		}
	}
}

func TestSPMDBuilderErrors(t *testing.T) {
	be := newDevicesBackend(t, "devices=2")
	if err := be.Builder("x").DistributedSPMD(3); err == nil {
		t.Error("DistributedSPMD(3) on 2 devices accepted")
	}
	if err := be.Builder("x").DistributedAutoSharding(); err == nil {
		t.Error("AutoSharding accepted")
	}
	b := be.Builder("x")
	_ = b.DistributedSPMD(2)
	p, _ := b.Parameter("x", shapes.Make(dtypes.Float32, 1), nil)
	if _, err := b.AllReduce([]backends.Op{p}, backends.ReduceOpSum, [][]int{{0}}); err == nil {
		t.Error("replica 1 in no group accepted")
	}
	if _, err := b.AllReduce([]backends.Op{p}, backends.ReduceOpSum, [][]int{{0, 1}, {1}}); err == nil {
		t.Error("replica 1 in two groups accepted")
	}
	if err := b.DeviceAssignment(0, 0); err == nil {
		t.Error("device 0 assigned twice accepted")
	}
}
