{{/* The labels of every object; `component` names the part (api, ui, watcher). */}}
{{- define "lineage-svc.labels" -}}
app.kubernetes.io/name: lineage-svc
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The selector labels of a component: pass (dict "root" $ "component" "api"). */}}
{{- define "lineage-svc.selector" -}}
app.kubernetes.io/name: lineage-svc
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* The name of a component's objects. */}}
{{- define "lineage-svc.name" -}}
{{ printf "%s-%s" .root.Release.Name .component | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{/* The image. */}}
{{- define "lineage-svc.image" -}}
{{ printf "%s:%s" .Values.image.repository .Values.image.tag }}
{{- end -}}

{{/* The pod and container security contexts: user 1000, read-only root, no capabilities. */}}
{{- define "lineage-svc.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 1000
runAsGroup: 1000
seccompProfile:
  type: RuntimeDefault
{{- end -}}
{{- define "lineage-svc.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end -}}

{{/* The Secret with the API's and the platform's keys: required, never shipped by the chart. */}}
{{- define "lineage-svc.secret" -}}
{{ required "existingSecret: name the Secret with LINEAGE_SVC_API_KEY and the platform keys (create it first)" .Values.existingSecret }}
{{- end -}}
