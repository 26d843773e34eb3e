// Package kubernetes holds peppolgate's Kubernetes manifests (docs/DEPLOY.md); its tests
// render the kustomization as `kubectl apply -k` would, decode every object strictly
// into its k8s.io/api type, and check the objects against what the built binary serves
// and accepts.
package kubernetes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// object is one decoded Kubernetes object.
type object interface {
	metav1.Object
	runtime.Object
}

// newObject returns an empty typed object for apiVersion and kind, or nil for a kind the
// manifests do not use (an error: every object must decode into its real type).
func newObject(apiVersion, kind string) object {
	switch apiVersion + "/" + kind {
	case "v1/Namespace":
		return &corev1.Namespace{}
	case "v1/ConfigMap":
		return &corev1.ConfigMap{}
	case "v1/Service":
		return &corev1.Service{}
	case "v1/PersistentVolumeClaim":
		return &corev1.PersistentVolumeClaim{}
	case "apps/v1/Deployment":
		return &appsv1.Deployment{}
	case "autoscaling/v2/HorizontalPodAutoscaler":
		return &autoscalingv2.HorizontalPodAutoscaler{}
	case "policy/v1/PodDisruptionBudget":
		return &policyv1.PodDisruptionBudget{}
	case "networking.k8s.io/v1/NetworkPolicy":
		return &networkingv1.NetworkPolicy{}
	case "batch/v1/CronJob":
		return &batchv1.CronJob{}
	}
	return nil
}

// kustomization is the subset of kustomize's Kustomization the manifests use. Decoding
// is strict, so a field added to kustomization.yaml that render does not apply (labels,
// patches, components...) fails the test instead of being silently ignored.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace"`
	Resources  []string `json:"resources"`
	Images     []image  `json:"images"`
}

// image is one entry of a kustomization's images: containers whose image is Name (with
// any tag) get NewName (when set) and NewTag.
type image struct {
	Name    string `json:"name"`
	NewName string `json:"newName,omitempty"`
	NewTag  string `json:"newTag,omitempty"`
}

// rendered is the kustomization's output: its objects, in order, and the kustomization.
type rendered struct {
	k    kustomization
	objs []object
}

// decodeStrict decodes YAML into v through JSON, refusing duplicate keys, fields v's type
// does not have and trailing data.
func decodeStrict(doc []byte, v any) error {
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the object")
	}
	return nil
}

// docSep splits a YAML stream into documents.
var docSep = regexp.MustCompile(`(?m)^---[ \t]*$`)

// decodeObjects decodes every document of a YAML stream strictly into its k8s.io/api
// type; documents holding only comments are skipped.
func decodeObjects(data []byte) ([]object, error) {
	var objs []object
	for i, doc := range docSep.Split(string(data), -1) {
		js, err := yaml.YAMLToJSONStrict([]byte(doc))
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		if string(js) == "null" {
			continue
		}
		var tm metav1.TypeMeta
		if err := json.Unmarshal(js, &tm); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		obj := newObject(tm.APIVersion, tm.Kind)
		if obj == nil {
			return nil, fmt.Errorf("document %d: unknown kind %s %s", i+1, tm.APIVersion, tm.Kind)
		}
		if err := decodeStrict([]byte(doc), obj); err != nil {
			return nil, fmt.Errorf("document %d (%s): %w", i+1, tm.Kind, err)
		}
		if obj.GetName() == "" {
			return nil, fmt.Errorf("document %d (%s): no metadata.name", i+1, tm.Kind)
		}
		objs = append(objs, obj)
	}
	return objs, nil
}

// render renders the kustomization in dir as kustomize does for the fields it allows:
// the resources (files of dir) in order, the namespace set on every namespaced object,
// and the images' new names and tags set on every container.
func render(dir string) (rendered, error) {
	var r rendered
	data, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return r, err
	}
	if err := decodeStrict(data, &r.k); err != nil {
		return r, fmt.Errorf("kustomization.yaml: %w", err)
	}
	if r.k.APIVersion != "kustomize.config.k8s.io/v1beta1" || r.k.Kind != "Kustomization" {
		return r, fmt.Errorf("kustomization.yaml: %s %s is not a kustomize.config.k8s.io/v1beta1 Kustomization", r.k.APIVersion, r.k.Kind)
	}
	seen := map[string]bool{}
	for _, res := range r.k.Resources {
		if filepath.Base(res) != res || !strings.HasSuffix(res, ".yaml") {
			return r, fmt.Errorf("kustomization.yaml: resource %q is not a .yaml file of this directory", res)
		}
		data, err := os.ReadFile(filepath.Join(dir, res))
		if err != nil {
			return r, err
		}
		objs, err := decodeObjects(data)
		if err != nil {
			return r, fmt.Errorf("%s: %w", res, err)
		}
		for _, o := range objs {
			id := o.GetObjectKind().GroupVersionKind().Kind + "/" + o.GetName()
			if seen[id] {
				return r, fmt.Errorf("%s: %s defined twice", res, id)
			}
			seen[id] = true
		}
		r.objs = append(r.objs, objs...)
	}
	for _, o := range r.objs {
		if ns, ok := o.(*corev1.Namespace); ok {
			// kustomize names the Namespace object after namespace: keep them equal, so
			// that this rendering and kustomize's agree.
			if r.k.Namespace != "" && ns.Name != r.k.Namespace {
				return r, fmt.Errorf("Namespace %s differs from the kustomization's namespace %s", ns.Name, r.k.Namespace)
			}
			continue
		}
		if r.k.Namespace != "" {
			o.SetNamespace(r.k.Namespace)
		}
		for _, spec := range podSpecs(o) {
			for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
				for i := range cs {
					cs[i].Image = setImage(cs[i].Image, r.k.Images)
				}
			}
		}
	}
	return r, nil
}

// podSpecs returns the pod templates' specs of o, to be changed in place.
func podSpecs(o object) []*corev1.PodSpec {
	switch o := o.(type) {
	case *appsv1.Deployment:
		return []*corev1.PodSpec{&o.Spec.Template.Spec}
	case *batchv1.CronJob:
		return []*corev1.PodSpec{&o.Spec.JobTemplate.Spec.Template.Spec}
	}
	return nil
}

// splitImage splits an image reference into its name and its tag ("" for none).
func splitImage(ref string) (name, tag string) {
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		return ref[:i], ref[i+1:]
	}
	return ref, ""
}

// setImage applies the kustomization's images to the image reference ref.
func setImage(ref string, images []image) string {
	name, tag := splitImage(ref)
	for _, im := range images {
		if im.Name != name {
			continue
		}
		if im.NewName != "" {
			name = im.NewName
		}
		if im.NewTag != "" {
			tag = im.NewTag
		}
	}
	if tag == "" {
		return name
	}
	return name + ":" + tag
}

func TestDecodeObjectsIsStrict(t *testing.T) {
	const deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  replicas: 3\n"
	tests := []struct {
		name    string
		yaml    string
		wantErr string // "" for none
		want    int    // objects decoded
	}{
		{name: "a valid Deployment", yaml: deployment, want: 1},
		{name: "two documents and a comment-only one", yaml: deployment + "---\n# nothing\n---\n" + strings.Replace(deployment, "name: x", "name: other", 1), want: 2},
		{name: "an unknown field", yaml: deployment + "  replica: 1\n", wantErr: `unknown field "replica"`},
		{name: "an unknown nested field", yaml: deployment + "  template:\n    spec:\n      containers:\n        - name: c\n          imag: x\n", wantErr: `unknown field "imag"`},
		{name: "a duplicate key", yaml: deployment + "  replicas: 2\n", wantErr: "already set"},
		{name: "an unknown kind", yaml: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\n", wantErr: "unknown kind v1 Secret"},
		{name: "a kind under the wrong apiVersion", yaml: strings.Replace(deployment, "apps/v1", "apps/v1beta1", 1), wantErr: "unknown kind"},
		{name: "a wrong type", yaml: strings.Replace(deployment, "replicas: 3", "replicas: three", 1), wantErr: "cannot unmarshal"},
		{name: "no name", yaml: strings.Replace(deployment, "name: x", "labels: {}", 1), wantErr: "no metadata.name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := decodeObjects([]byte(tt.yaml))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) != tt.want {
				t.Fatalf("%d objects, want %d", len(objs), tt.want)
			}
		})
	}
}

func TestRenderRefusesWhatItCannotRender(t *testing.T) {
	tests := []struct {
		name, kustomization, wantErr string
	}{
		{name: "a field render does not apply", kustomization: "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\ncommonLabels: {a: b}\n", wantErr: `unknown field "commonLabels"`},
		{name: "a resource directory", kustomization: "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../base]\n", wantErr: "not a .yaml file of this directory"},
		{name: "not a Kustomization", kustomization: "apiVersion: v1\nkind: ConfigMap\n", wantErr: "is not a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(tt.kustomization), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := render(dir); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestSetImage(t *testing.T) {
	images := []image{{Name: "ghcr.io/peppolgate/peppolgate", NewTag: "1.2.3"}, {Name: "localhost:5000/x", NewName: "registry.example/y", NewTag: "2"}}
	tests := []struct{ in, want string }{
		{"ghcr.io/peppolgate/peppolgate", "ghcr.io/peppolgate/peppolgate:1.2.3"},
		{"ghcr.io/peppolgate/peppolgate:old", "ghcr.io/peppolgate/peppolgate:1.2.3"},
		{"localhost:5000/x", "registry.example/y:2"},
		{"valkey/valkey:8.1-alpine", "valkey/valkey:8.1-alpine"},
		{"ghcr.io/peppolgate/peppolgate-other", "ghcr.io/peppolgate/peppolgate-other"},
	}
	for _, tt := range tests {
		if got := setImage(tt.in, images); got != tt.want {
			t.Errorf("setImage(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
