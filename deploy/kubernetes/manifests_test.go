package kubernetes

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/peppolgate/peppolgate/fleet/redistest"
	"github.com/peppolgate/peppolgate/internal/telemetry"
)

// The names the manifests and docs/DEPLOY.md agree on.
const (
	imageName   = "ghcr.io/peppolgate/peppolgate" // the repository `make image` builds (kustomization.yaml images:)
	secretName  = "peppolgate-secrets"            // created by the operator, never by the manifests
	appName     = "peppolgate"
	mirrorMount = "/data"
)

// secretKeys are the keys of the peppolgate-secrets Secret the manifests may reference.
var secretKeys = []string{"OPENAI_API_KEY", "PEPPOLGATE_REDIS"}

// find returns the object of type T named name.
func find[T object](t *testing.T, objs []object, name string) T {
	t.Helper()
	for _, o := range objs {
		if v, ok := o.(T); ok && o.GetName() == name {
			return v
		}
	}
	var zero T
	t.Fatalf("no %T named %s in the rendered manifests", zero, name)
	return zero
}

// selects reports whether sel selects a pod with these labels.
func selects(t *testing.T, sel *metav1.LabelSelector, podLabels map[string]string) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatalf("selector %v: %v", sel, err)
	}
	return !s.Empty() && s.Matches(labels.Set(podLabels))
}

// TestManifests renders deploy/kubernetes and checks its objects: with each other (labels,
// ports, volumes, names) and, with the built binary, against what peppolgate really serves
// and accepts.
func TestManifests(t *testing.T) {
	r, err := render(".")
	if err != nil {
		t.Fatal(err)
	}
	objs := r.objs
	if r.k.Namespace == "" {
		t.Error("kustomization.yaml sets no namespace")
	}
	cm := find[*corev1.ConfigMap](t, objs, appName)
	dep := find[*appsv1.Deployment](t, objs, appName)
	svc := find[*corev1.Service](t, objs, appName)
	hpa := find[*autoscalingv2.HorizontalPodAutoscaler](t, objs, appName)
	pdb := find[*policyv1.PodDisruptionBudget](t, objs, appName)
	np := find[*networkingv1.NetworkPolicy](t, objs, appName)
	npSync := find[*networkingv1.NetworkPolicy](t, objs, appName+"-mirror-sync")
	npRedis := find[*networkingv1.NetworkPolicy](t, objs, appName+"-redis")
	pvc := find[*corev1.PersistentVolumeClaim](t, objs, appName+"-mirror")
	cron := find[*batchv1.CronJob](t, objs, appName+"-mirror-sync")
	redis := find[*appsv1.Deployment](t, objs, appName+"-redis")
	redisSvc := find[*corev1.Service](t, objs, appName+"-redis")

	pod := dep.Spec.Template
	syncPod := cron.Spec.JobTemplate.Spec.Template
	if len(pod.Spec.Containers) != 1 || len(syncPod.Spec.Containers) != 1 || len(redis.Spec.Template.Spec.Containers) != 1 {
		t.Fatal("want one container in the replicas', the sync job's and Redis's pods")
	}
	c, syncC := pod.Spec.Containers[0], syncPod.Spec.Containers[0]

	t.Run("image", func(t *testing.T) {
		if len(r.k.Images) != 1 || r.k.Images[0].Name != imageName || r.k.Images[0].NewName != "" {
			t.Fatalf("kustomization.yaml images = %+v, want one entry naming %s with only its tag", r.k.Images, imageName)
		}
		tag := r.k.Images[0].NewTag
		if !regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(tag) {
			t.Errorf("image tag %q is not a release version as make image tags it (the module version, v1.2.3)", tag)
		}
		for _, img := range []string{c.Image, syncC.Image} {
			if img != imageName+":"+tag {
				t.Errorf("image %s, want %s:%s", img, imageName, tag)
			}
		}
		// The image build names its repository in the Makefile (IMAGE ?= ...) once it
		// exists: both must agree.
		if mk, err := os.ReadFile("../../Makefile"); err == nil {
			if m := regexp.MustCompile(`(?m)^IMAGE\s*\??=\s*(\S+)`).FindSubmatch(mk); m != nil {
				if name, _ := splitImage(string(m[1])); name != imageName {
					t.Errorf("the Makefile's IMAGE is %s, the manifests' %s", m[1], imageName)
				}
			}
		}
	})

	t.Run("deployment", func(t *testing.T) {
		if dep.Spec.Replicas == nil || *dep.Spec.Replicas != 3 {
			t.Errorf("replicas %v, want 3", dep.Spec.Replicas)
		}
		if !selects(t, dep.Spec.Selector, pod.Labels) {
			t.Error("the Deployment's selector does not select its pods")
		}
		if !slices.Equal(c.Args, []string{"serve"}) || len(c.Command) != 0 {
			t.Errorf("command %q args %q, want the image's entrypoint with [serve]", c.Command, c.Args)
		}
		if len(pod.Spec.TopologySpreadConstraints) == 0 {
			t.Error("no topologySpreadConstraints")
		}
		for _, tsc := range pod.Spec.TopologySpreadConstraints {
			if !selects(t, tsc.LabelSelector, pod.Labels) {
				t.Errorf("topology spread over %s does not select the replicas", tsc.TopologyKey)
			}
		}
		if got := containerPort(c, "http"); got != 8080 {
			t.Errorf("container port http = %d, want 8080", got)
		}
		// -addr's port is the container port.
		if _, port, err := net.SplitHostPort(cm.Data["PEPPOLGATE_ADDR"]); err != nil || port != fmt.Sprint(containerPort(c, "http")) {
			t.Errorf("PEPPOLGATE_ADDR %q does not listen on the container port %d", cm.Data["PEPPOLGATE_ADDR"], containerPort(c, "http"))
		}
		for name, p := range map[string]*corev1.Probe{"startup": c.StartupProbe, "readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
			if p == nil || p.HTTPGet == nil {
				t.Errorf("no HTTP %s probe", name)
				continue
			}
			if p.HTTPGet.Port != intstr.FromString("http") {
				t.Errorf("%s probe on port %v, want the named port http", name, p.HTTPGet.Port.String())
			}
		}
		if c.ReadinessProbe != nil && c.ReadinessProbe.HTTPGet.Path != "/readyz" {
			t.Errorf("readiness probe %s, want /readyz", c.ReadinessProbe.HTTPGet.Path)
		}
		if c.LivenessProbe != nil && c.LivenessProbe.HTTPGet.Path != "/healthz" {
			t.Errorf("liveness probe %s, want /healthz", c.LivenessProbe.HTTPGet.Path)
		}
		if p := c.StartupProbe; p != nil && time.Duration(p.PeriodSeconds*p.FailureThreshold)*time.Second < time.Minute {
			t.Errorf("the startup probe allows %ds, want a minute at least for a mirror's load", p.PeriodSeconds*p.FailureThreshold)
		}
		checkResources(t, c)
		if len(c.EnvFrom) != 1 || c.EnvFrom[0].ConfigMapRef == nil || c.EnvFrom[0].ConfigMapRef.Name != cm.Name {
			t.Errorf("envFrom %+v, want the ConfigMap %s", c.EnvFrom, cm.Name)
		}
		checkSecretRefs(t, c)
		// The mirror volume: the shared claim, read-only, at /data, and -mirror under it.
		m := mount(t, c, "mirror")
		if m.MountPath != mirrorMount || !m.ReadOnly {
			t.Errorf("mirror mounted at %s read-only %v, want %s read-only", m.MountPath, m.ReadOnly, mirrorMount)
		}
		if v := volume(t, pod.Spec, "mirror"); v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != pvc.Name || !v.PersistentVolumeClaim.ReadOnly {
			t.Errorf("volume mirror %+v, want the claim %s read-only", v.VolumeSource, pvc.Name)
		}
		if p := cm.Data["PEPPOLGATE_MIRROR"]; !strings.HasPrefix(p, mirrorMount+"/") {
			t.Errorf("PEPPOLGATE_MIRROR %q is not on the mirror volume %s", p, mirrorMount)
		}
		if d, err := time.ParseDuration(cm.Data["PEPPOLGATE_MIRROR_REFRESH"]); err != nil || d != 0 {
			t.Errorf("PEPPOLGATE_MIRROR_REFRESH %q: the replicas mount the mirror read-only, the CronJob syncs it", cm.Data["PEPPOLGATE_MIRROR_REFRESH"])
		}
		if m := mount(t, c, "tmp"); m.MountPath != "/tmp" || volume(t, pod.Spec, "tmp").EmptyDir == nil {
			t.Error("want an emptyDir at /tmp on the read-only root")
		}
	})

	t.Run("security", func(t *testing.T) {
		for _, p := range []struct {
			name string
			spec corev1.PodSpec
			uid  int64
		}{{"replicas", pod.Spec, 65532}, {"mirror sync", syncPod.Spec, 65532}, {"redis", redis.Spec.Template.Spec, 999}} {
			checkSecurity(t, p.name, p.spec, p.uid)
		}
	})

	t.Run("service", func(t *testing.T) {
		if svc.Spec.Type != corev1.ServiceTypeClusterIP || !selects(t, &metav1.LabelSelector{MatchLabels: svc.Spec.Selector}, pod.Labels) {
			t.Error("want a ClusterIP Service selecting the replicas")
		}
		if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 80 || svc.Spec.Ports[0].TargetPort != intstr.FromString("http") {
			t.Errorf("ports %+v, want 80 to the named port http", svc.Spec.Ports)
		}
		// The Redis Service reaches the Redis pod's port.
		rc := redis.Spec.Template.Spec.Containers[0]
		if !selects(t, &metav1.LabelSelector{MatchLabels: redisSvc.Spec.Selector}, redis.Spec.Template.Labels) ||
			len(redisSvc.Spec.Ports) != 1 || containerPort(rc, redisSvc.Spec.Ports[0].TargetPort.String()) != 6379 || redisSvc.Spec.Ports[0].Port != 6379 {
			t.Errorf("the Redis Service does not reach the Redis pods' port 6379")
		}
		if selects(t, &metav1.LabelSelector{MatchLabels: svc.Spec.Selector}, redis.Spec.Template.Labels) {
			t.Error("the Service selects the Redis pods too")
		}
	})

	t.Run("hpa and pdb", func(t *testing.T) {
		ref := hpa.Spec.ScaleTargetRef
		if ref.Kind != "Deployment" || ref.APIVersion != "apps/v1" || ref.Name != dep.Name {
			t.Errorf("the HPA scales %+v, want the Deployment %s", ref, dep.Name)
		}
		if hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas != *dep.Spec.Replicas || hpa.Spec.MaxReplicas <= *hpa.Spec.MinReplicas {
			t.Errorf("HPA replicas %v..%d, want from the Deployment's %d up", hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas, *dep.Spec.Replicas)
		}
		if len(hpa.Spec.Metrics) != 1 || hpa.Spec.Metrics[0].Resource == nil || hpa.Spec.Metrics[0].Resource.Name != corev1.ResourceCPU {
			t.Errorf("HPA metrics %+v, want CPU", hpa.Spec.Metrics)
		}
		if !selects(t, pdb.Spec.Selector, pod.Labels) {
			t.Error("the PodDisruptionBudget does not select the replicas")
		}
		if mu := pdb.Spec.MaxUnavailable; (mu == nil || *mu != intstr.FromInt32(1)) && (pdb.Spec.MinAvailable == nil || *pdb.Spec.MinAvailable != intstr.FromInt32(2)) {
			t.Errorf("PDB maxUnavailable %v minAvailable %v, want 1 or 2", pdb.Spec.MaxUnavailable, pdb.Spec.MinAvailable)
		}
	})

	t.Run("network policy", func(t *testing.T) {
		if !selects(t, &np.Spec.PodSelector, pod.Labels) || selects(t, &np.Spec.PodSelector, redis.Spec.Template.Labels) {
			t.Error("the replicas' NetworkPolicy does not select exactly the replicas")
		}
		if len(np.Spec.Ingress) != 1 || len(np.Spec.Ingress[0].Ports) != 1 || containerPort(c, np.Spec.Ingress[0].Ports[0].Port.String()) != 8080 {
			t.Errorf("ingress %+v, want the port http only", np.Spec.Ingress)
		}
		if !selects(t, &npSync.Spec.PodSelector, syncPod.Labels) || len(npSync.Spec.Ingress) != 0 {
			t.Error("the sync job's NetworkPolicy does not select its pods, or lets something in")
		}
		for _, p := range []*networkingv1.NetworkPolicy{np, npSync} {
			if !slices.Contains(p.Spec.PolicyTypes, networkingv1.PolicyTypeEgress) || !slices.Contains(p.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) {
				t.Errorf("%s: policyTypes %v, want Ingress and Egress", p.Name, p.Spec.PolicyTypes)
			}
			checkEgress(t, p, redis.Spec.Template.Labels)
		}
		if !selects(t, &npRedis.Spec.PodSelector, redis.Spec.Template.Labels) || len(npRedis.Spec.Ingress) != 1 {
			t.Fatal("the Redis NetworkPolicy does not select Redis with one ingress rule")
		}
		in := npRedis.Spec.Ingress[0]
		for _, l := range []map[string]string{pod.Labels, syncPod.Labels} {
			if len(in.From) != 1 || in.From[0].PodSelector == nil || !selects(t, in.From[0].PodSelector, l) {
				t.Errorf("Redis does not admit the pods labelled %v", l)
			}
		}
		if len(in.Ports) != 1 || containerPort(redis.Spec.Template.Spec.Containers[0], in.Ports[0].Port.String()) != 6379 {
			t.Errorf("Redis admits ports %+v, want 6379 only", in.Ports)
		}
	})

	t.Run("mirror sync", func(t *testing.T) {
		if cron.Spec.ConcurrencyPolicy != batchv1.ForbidConcurrent {
			t.Errorf("concurrencyPolicy %s, want Forbid", cron.Spec.ConcurrencyPolicy)
		}
		if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
			t.Errorf("the mirror claim's access modes %v, want ReadWriteMany (one writer, every replica reading)", pvc.Spec.AccessModes)
		}
		m := mount(t, syncC, "mirror")
		if m.MountPath != mirrorMount || m.ReadOnly {
			t.Errorf("the job mounts the mirror at %s read-only %v, want %s writable", m.MountPath, m.ReadOnly, mirrorMount)
		}
		if v := volume(t, syncPod.Spec, "mirror"); v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != pvc.Name {
			t.Errorf("the job's mirror volume %+v, want the claim %s", v.VolumeSource, pvc.Name)
		}
		if len(syncC.Args) < 2 || syncC.Args[0] != "mirror" || syncC.Args[1] != "sync" {
			t.Errorf("the job runs %q, want mirror sync", syncC.Args)
		}
		for _, e := range syncC.Env {
			if ref := e.ValueFrom; ref != nil && ref.ConfigMapKeyRef != nil {
				if ref.ConfigMapKeyRef.Name != cm.Name || cm.Data[ref.ConfigMapKeyRef.Key] == "" || e.Name != ref.ConfigMapKeyRef.Key {
					t.Errorf("the job's %s reads %s of %s, not the replicas' setting", e.Name, ref.ConfigMapKeyRef.Key, ref.ConfigMapKeyRef.Name)
				}
			}
		}
		if !slices.ContainsFunc(syncC.Env, func(e corev1.EnvVar) bool { return e.Name == "PEPPOLGATE_REDIS" }) {
			t.Error("the job does not take PEPPOLGATE_REDIS (the fleet's sync lease)")
		}
		checkSecretRefs(t, syncC)
		checkResources(t, syncC)
	})

	t.Run("redis", func(t *testing.T) {
		rc := redis.Spec.Template.Spec.Containers[0]
		args := strings.Join(rc.Args, " ")
		for _, want := range []string{"--maxmemory ", "--maxmemory-policy allkeys-lru", `--save  `, "--appendonly no"} {
			if !strings.Contains(args+" ", want) {
				t.Errorf("Redis args %q lack %q", rc.Args, want)
			}
		}
		if redis.Spec.Replicas == nil || *redis.Spec.Replicas != 1 {
			t.Error("want one Redis replica")
		}
		checkResources(t, rc)
	})

	t.Run("docs", func(t *testing.T) {
		// docs/DEPLOY.md's commands name these objects: a rename must change them too.
		doc, err := os.ReadFile("../../docs/DEPLOY.md")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			"kubectl create namespace " + r.k.Namespace,
			"kubectl -n " + r.k.Namespace + " create secret generic " + secretName,
			"kubectl apply -k deploy/kubernetes",
			"--from=cronjob/" + cron.Name + " ",
			"deployment/" + dep.Name,
			"svc/" + svc.Name + " 8080:80",
		} {
			if !strings.Contains(string(doc), want) {
				t.Errorf("docs/DEPLOY.md does not say %q", want)
			}
		}
		for _, k := range secretKeys {
			if !strings.Contains(string(doc), "--from-literal="+k+"=") {
				t.Errorf("docs/DEPLOY.md does not show how to set the Secret's %s", k)
			}
		}
	})

	// The binary: every PEPPOLGATE_* variable is a flag's, the ConfigMap's values are
	// accepted, and the probes answer 200 on what `serve` listens on.
	bin := buildBinary(t)
	t.Run("flags", func(t *testing.T) {
		serveHelp := runHelp(t, bin, "-h")
		serveEnv := envNames(serveHelp)
		mirrorEnv := envNames(runHelp(t, bin, "mirror", "-h"))
		if len(serveEnv) < 20 || len(mirrorEnv) < 3 {
			t.Fatalf("found %d serve and %d mirror variables in -h: is the help's format changed?", len(serveEnv), len(mirrorEnv))
		}
		for k := range cm.Data {
			if !serveEnv[k] {
				t.Errorf("ConfigMap: %s is not the variable of any serve flag (peppolgate -h)", k)
			}
		}
		for _, e := range c.Env {
			if strings.HasPrefix(e.Name, "PEPPOLGATE_") && !serveEnv[e.Name] {
				t.Errorf("Deployment: %s is not the variable of any serve flag", e.Name)
			}
		}
		if !strings.Contains(serveHelp, "OPENAI_API_KEY") {
			t.Error("peppolgate -h no longer names OPENAI_API_KEY")
		}
		for _, e := range syncC.Env {
			if strings.HasPrefix(e.Name, "PEPPOLGATE_") && !mirrorEnv[e.Name] && !isArgVar(syncC.Args, e.Name) {
				t.Errorf("CronJob: %s is not the variable of any mirror sync flag, nor used in its args", e.Name)
			}
		}
		mirrorFlags := flagNames(runHelp(t, bin, "mirror", "-h"))
		for _, a := range syncC.Args[2:] {
			if strings.HasPrefix(a, "-") && !mirrorFlags[strings.TrimLeft(a, "-")] {
				t.Errorf("CronJob: %s is not a mirror sync flag", a)
			}
		}
	})
	t.Run("binary", func(t *testing.T) {
		checkBinary(t, bin, cm, dep, cron, redis)
	})
}

// containerPort returns the port of c named or numbered port, or 0.
func containerPort(c corev1.Container, port string) int32 {
	for _, p := range c.Ports {
		if p.Name == port || fmt.Sprint(p.ContainerPort) == port {
			return p.ContainerPort
		}
	}
	return 0
}

func mount(t *testing.T, c corev1.Container, name string) corev1.VolumeMount {
	t.Helper()
	for _, m := range c.VolumeMounts {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("container %s mounts no volume %s", c.Name, name)
	return corev1.VolumeMount{}
}

func volume(t *testing.T, spec corev1.PodSpec, name string) corev1.Volume {
	t.Helper()
	for _, v := range spec.Volumes {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no volume %s", name)
	return corev1.Volume{}
}

// checkResources checks that c requests CPU and memory within limits, and that Go's
// GOMEMLIMIT, when set, is below the memory limit.
func checkResources(t *testing.T, c corev1.Container) {
	t.Helper()
	req, lim := c.Resources.Requests, c.Resources.Limits
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		q, l := req[r], lim[r]
		if q.IsZero() || l.IsZero() || q.Cmp(l) > 0 {
			t.Errorf("%s: %s request %s limit %s, want both, the request at most the limit", c.Name, r, q.String(), l.String())
		}
	}
	for _, e := range c.Env {
		if e.Name != "GOMEMLIMIT" {
			continue
		}
		q, err := resource.ParseQuantity(strings.TrimSuffix(e.Value, "B"))
		if l := lim[corev1.ResourceMemory]; err != nil || q.Cmp(l) >= 0 || q.Cmp(req[corev1.ResourceMemory]) < 0 {
			t.Errorf("%s: GOMEMLIMIT %s, want between the memory request and limit", c.Name, e.Value)
		}
	}
}

// checkSecretRefs checks that c reads only the documented keys of peppolgate-secrets, each
// into the variable of its name, optionally (the service runs without either).
func checkSecretRefs(t *testing.T, c corev1.Container) {
	t.Helper()
	for _, e := range c.Env {
		if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			continue
		}
		ref := e.ValueFrom.SecretKeyRef
		if ref.Name != secretName || !slices.Contains(secretKeys, ref.Key) || ref.Key != e.Name || ref.Optional == nil || !*ref.Optional {
			t.Errorf("%s: %s from %s/%s (optional %v), want an optional key of %s named %v", c.Name, e.Name, ref.Name, ref.Key, ref.Optional, secretName, secretKeys)
		}
	}
}

// checkSecurity checks the pod's and every container's securityContext.
func checkSecurity(t *testing.T, name string, spec corev1.PodSpec, uid int64) {
	t.Helper()
	ps := spec.SecurityContext
	if ps == nil || ps.RunAsNonRoot == nil || !*ps.RunAsNonRoot || ps.SeccompProfile == nil || ps.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("%s: pod securityContext %+v, want runAsNonRoot and seccomp RuntimeDefault", name, ps)
	}
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		t.Errorf("%s: the service account token is mounted", name)
	}
	// The Services peppolgate and peppolgate-redis would otherwise put PEPPOLGATE_PORT,
	// PEPPOLGATE_REDIS_PORT... among the settings' variables.
	if spec.EnableServiceLinks == nil || *spec.EnableServiceLinks {
		t.Errorf("%s: enableServiceLinks is not false", name)
	}
	for _, c := range append(spec.InitContainers, spec.Containers...) {
		sc := c.SecurityContext
		switch {
		case sc == nil:
			t.Errorf("%s/%s: no securityContext", name, c.Name)
		case sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot,
			sc.RunAsUser == nil || *sc.RunAsUser != uid,
			sc.RunAsGroup == nil || *sc.RunAsGroup != uid,
			sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem,
			sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation,
			sc.Privileged != nil && *sc.Privileged,
			sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0,
			sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
			t.Errorf("%s/%s: securityContext %+v, want non-root %d:%d, a read-only root, no privilege escalation, every capability dropped, seccomp RuntimeDefault", name, c.Name, *sc, uid, uid)
		}
	}
}

// checkEgress checks that p lets its pods out to DNS (53 UDP and TCP), to 443 and 80 anywhere,
// and to Redis's pods on 6379.
func checkEgress(t *testing.T, p *networkingv1.NetworkPolicy, redisLabels map[string]string) {
	t.Helper()
	allows := func(port int, proto corev1.Protocol, to func([]networkingv1.NetworkPolicyPeer) bool) bool {
		for _, rule := range p.Spec.Egress {
			if !to(rule.To) {
				continue
			}
			for _, rp := range rule.Ports {
				if rp.Port != nil && rp.Port.IntValue() == port && rp.Protocol != nil && *rp.Protocol == proto {
					return true
				}
			}
		}
		return false
	}
	anywhere := func(peers []networkingv1.NetworkPolicyPeer) bool {
		if len(peers) == 0 {
			return true
		}
		for _, peer := range peers {
			if peer.IPBlock != nil && peer.IPBlock.CIDR == "0.0.0.0/0" && len(peer.IPBlock.Except) == 0 {
				return true
			}
		}
		return false
	}
	redisPods := func(peers []networkingv1.NetworkPolicyPeer) bool {
		for _, peer := range peers {
			if peer.PodSelector != nil && peer.NamespaceSelector == nil && selects(t, peer.PodSelector, redisLabels) {
				return true
			}
		}
		return false
	}
	for _, want := range []struct {
		port  int
		proto corev1.Protocol
		to    func([]networkingv1.NetworkPolicyPeer) bool
		what  string
	}{
		{53, corev1.ProtocolUDP, anywhere, "DNS over UDP"},
		{53, corev1.ProtocolTCP, anywhere, "DNS over TCP"},
		{443, corev1.ProtocolTCP, anywhere, "HTTPS anywhere"},
		{80, corev1.ProtocolTCP, anywhere, "HTTP anywhere"},
		{6379, corev1.ProtocolTCP, redisPods, "Redis's pods"},
	} {
		if !allows(want.port, want.proto, want.to) {
			t.Errorf("%s: egress to %s (%d/%s) not allowed", p.Name, want.what, want.port, want.proto)
		}
	}
}

// buildBinary builds cmd/peppolgate into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "peppolgate")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/peppolgate/peppolgate/cmd/peppolgate").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runHelp returns what the binary prints for args (a -h).
func runHelp(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", bin, args, err, out)
	}
	return string(out)
}

// envNames returns the flags' variables a -h output names ("env PEPPOLGATE_X").
func envNames(help string) map[string]bool {
	names := map[string]bool{}
	for _, m := range regexp.MustCompile(`\benv (PEPPOLGATE_[A-Z0-9_]+)`).FindAllStringSubmatch(help, -1) {
		names[m[1]] = true
	}
	return names
}

// flagNames returns the flags a -h output lists (lines starting with -name).
func flagNames(help string) map[string]bool {
	names := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+-([a-z][a-z0-9-]*)`).FindAllStringSubmatch(help, -1) {
		names[m[1]] = true
	}
	return names
}

// isArgVar reports whether args use $(name), which Kubernetes expands from the env.
func isArgVar(args []string, name string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, "$("+name+")") })
}

// expandArgs expands $(VAR) in args as Kubernetes does, from env.
func expandArgs(args []string, env map[string]string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`).ReplaceAllStringFunc(a, func(m string) string {
			if v, ok := env[m[2:len(m)-1]]; ok {
				return v
			}
			return m
		})
	}
	return out
}

// logLines collects a process's JSON log lines.
type logLines struct {
	mu    sync.Mutex
	lines []map[string]any
	raw   strings.Builder
}

func (l *logLines) scan(sc *bufio.Scanner) {
	for sc.Scan() {
		var m map[string]any
		_ = json.Unmarshal(sc.Bytes(), &m)
		l.mu.Lock()
		l.raw.WriteString(sc.Text() + "\n")
		if m != nil {
			l.lines = append(l.lines, m)
		}
		l.mu.Unlock()
	}
}

// wait returns the first line whose msg is msg, waiting up to d.
func (l *logLines) wait(t *testing.T, msg string, d time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		l.mu.Lock()
		for _, m := range l.lines {
			if m["msg"] == msg {
				l.mu.Unlock()
				return m
			}
		}
		raw := l.raw.String()
		l.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("no %q log line within %v; the log:\n%s", msg, d, raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkBinary runs the built binary as the Deployment runs it (its args, the ConfigMap's
// variables and the literal ones of the container; only the listening address, the network
// and the mirror's path changed, to a free loopback port, the offline demo network and a
// temporary file), GETs each probe, runs the CronJob's command against the demo's
// Directory, then stops the server as the kubelet does and checks that the grace period
// covers the drain.
func checkBinary(t *testing.T, bin string, cm *corev1.ConfigMap, dep *appsv1.Deployment, cron *batchv1.CronJob, redis *appsv1.Deployment) {
	c := dep.Spec.Template.Spec.Containers[0]
	dir := t.TempDir()
	// The Secret's PEPPOLGATE_REDIS: a real redis-server started with redis.yaml's
	// arguments (Valkey takes the same), its program name left out.
	rargs := redis.Spec.Template.Spec.Containers[0].Args
	if len(rargs) == 0 || !strings.HasSuffix(rargs[0], "-server") {
		t.Fatalf("Redis args %q do not start with the server's name", rargs)
	}
	rsrv := redistest.Start(t, rargs[1:]...)
	redisURL := "redis://" + rsrv.Addr() + "/0"
	env := map[string]string{}
	for k, v := range cm.Data {
		env[k] = v
	}
	// The Secret as the operator creates it for this test: the Redis only (no LLM key).
	secret := map[string]string{"PEPPOLGATE_REDIS": redisURL}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = e.Value
		case e.ValueFrom.SecretKeyRef != nil && secret[e.ValueFrom.SecretKeyRef.Key] != "":
			env[e.Name] = secret[e.ValueFrom.SecretKeyRef.Key]
		}
	}
	env["PEPPOLGATE_ADDR"] = "127.0.0.1:0"
	env["PEPPOLGATE_NETWORK"] = "demo"
	env["PEPPOLGATE_MIRROR"] = filepath.Join(dir, "mirror.db")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, expandArgs(c.Args, env)...)
	cmd.Env = environ(env, dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var logs logLines
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); logs.scan(bufio.NewScanner(stderr)) }()
	// exited is closed once the process has exited, with its result in waitErr.
	exited := make(chan struct{})
	var waitErr error
	go func() { <-done; waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
		}
	})

	listening := logs.wait(t, "listening", 2*time.Minute)
	addr, _ := listening["addr"].(string)
	directory, _ := listening["directory"].(string)
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(path string) int {
		resp, err := client.Get("http://" + addr + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for name, p := range map[string]*corev1.Probe{"startup": c.StartupProbe, "readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		if got := get(p.HTTPGet.Path); got != http.StatusOK {
			t.Errorf("%s probe: GET %s = %d, want 200", name, p.HTTPGet.Path, got)
		}
	}
	var ready struct {
		Redis *struct {
			Up bool `json:"up"`
		} `json:"redis"`
	}
	if resp, err := client.Get("http://" + addr + c.ReadinessProbe.HTTPGet.Path); err != nil {
		t.Fatal(err)
	} else {
		err := json.NewDecoder(resp.Body).Decode(&ready)
		resp.Body.Close()
		if err != nil || ready.Redis == nil || !ready.Redis.Up {
			t.Errorf("readiness: redis %+v (%v), want up through the Secret's PEPPOLGATE_REDIS", ready.Redis, err)
		}
	}

	// The CronJob's command with its environment, from the ConfigMap, against the demo's
	// Directory (the only change: -directory-url, and the mirror in the temporary dir).
	sc := cron.Spec.JobTemplate.Spec.Template.Spec.Containers[0]
	syncEnv := map[string]string{}
	for _, e := range sc.Env {
		switch {
		case e.ValueFrom == nil:
			syncEnv[e.Name] = e.Value
		case e.ValueFrom.ConfigMapKeyRef != nil:
			syncEnv[e.Name] = cm.Data[e.ValueFrom.ConfigMapKeyRef.Key]
		case e.ValueFrom.SecretKeyRef != nil && secret[e.ValueFrom.SecretKeyRef.Key] != "":
			syncEnv[e.Name] = secret[e.ValueFrom.SecretKeyRef.Key]
		}
	}
	syncEnv["PEPPOLGATE_MIRROR"] = filepath.Join(dir, "synced.db")
	sctx, scancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer scancel()
	syncCmd := exec.CommandContext(sctx, bin, append(expandArgs(sc.Args, syncEnv), "-directory-url", directory)...)
	syncCmd.Env = environ(syncEnv, dir)
	if out, err := syncCmd.CombinedOutput(); err != nil {
		t.Errorf("the CronJob's command %q: %v\n%s", syncCmd.Args, err, out)
	} else if _, err := os.Stat(syncEnv["PEPPOLGATE_MIRROR"]); err != nil {
		t.Errorf("the CronJob's command wrote no mirror: %v\n%s", err, out)
	} else {
		// It recorded the sync for the replicas, under their prefix (docs/INTERFACE.md §4.10).
		rc := goredis.NewClient(&goredis.Options{Addr: rsrv.Addr()})
		defer rc.Close()
		keys, err := rc.Keys(sctx, cm.Data["PEPPOLGATE_REDIS_PREFIX"]+":mirror:synced:*").Result()
		if err != nil || len(keys) != 1 {
			t.Errorf("the sync job's record under the replicas' prefix %s: %q %v\n%s", cm.Data["PEPPOLGATE_REDIS_PREFIX"], keys, err, out)
		}
	}

	// SIGTERM, as the kubelet sends: /readyz answers 503 during the drain delay, and the
	// process exits 0 within the grace period.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	draining := logs.wait(t, "not ready; waiting before closing the listener", 30*time.Second)
	if got := get(c.ReadinessProbe.HTTPGet.Path); got != http.StatusServiceUnavailable {
		t.Errorf("readiness probe while draining = %d, want 503", got)
	}
	shutdown := logs.wait(t, "shutting down, draining in-flight requests", 30*time.Second)
	drain, err1 := time.ParseDuration(fmt.Sprint(draining["drain_delay"]))
	timeout, err2 := time.ParseDuration(fmt.Sprint(shutdown["timeout"]))
	if err1 != nil || err2 != nil {
		t.Fatalf("drain delay %v, shutdown timeout %v: %v %v", draining["drain_delay"], shutdown["timeout"], err1, err2)
	}
	if want, _ := time.ParseDuration(cm.Data["PEPPOLGATE_DRAIN_DELAY"]); drain != want || drain <= 0 {
		t.Errorf("the server drained for %v, want the ConfigMap's PEPPOLGATE_DRAIN_DELAY %v (more than 0)", drain, want)
	}
	// After the drain, the traces still queued are flushed, within telemetry.ShutdownTimeout.
	grace := dep.Spec.Template.Spec.TerminationGracePeriodSeconds
	if grace == nil || time.Duration(*grace)*time.Second <= drain+timeout+telemetry.ShutdownTimeout {
		t.Errorf("terminationGracePeriodSeconds %v, want more than the drain delay %v plus the shutdown timeout %v plus the trace flush's %v", grace, drain, timeout, telemetry.ShutdownTimeout)
	}
	select {
	case <-exited:
		if waitErr != nil {
			t.Errorf("serve after SIGTERM: %v", waitErr)
		}
	case <-time.After(time.Minute):
		t.Error("serve did not exit within a minute of SIGTERM")
	}
}

// environ is a process environment of env only (and HOME), not the test's.
func environ(env map[string]string, home string) []string {
	out := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}
