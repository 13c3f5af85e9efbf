{{/* The chart's name, or nameOverride. */}}
{{- define "shutter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-qualified name, or fullnameOverride. */}}
{{- define "shutter.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Labels every object carries. */}}
{{- define "shutter.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "shutter.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Labels selecting this release's pods (a component label is added per Deployment). */}}
{{- define "shutter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "shutter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The Secret with SHUTTER_SIGNING_SECRET and the URLs: the chart's own or an existing one. */}}
{{- define "shutter.secretName" -}}
{{- default (printf "%s-secrets" (include "shutter.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{/* The image reference. */}}
{{- define "shutter.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* Pod spec parts shared by api and worker: environment, probes, security, volumes. */}}
{{- define "shutter.containerCommon" -}}
image: {{ include "shutter.image" . }}
imagePullPolicy: {{ .Values.image.pullPolicy }}
envFrom:
  - configMapRef:
      name: {{ include "shutter.fullname" . }}-config
  - secretRef:
      name: {{ include "shutter.secretName" . }}
ports:
  - name: http
    containerPort: {{ .Values.config.SHUTTER_PORT | int }}
    protocol: TCP
startupProbe:
  httpGet:
    path: {{ .Values.probes.startup.path }}
    port: http
  periodSeconds: {{ .Values.probes.startup.periodSeconds }}
  failureThreshold: {{ .Values.probes.startup.failureThreshold }}
livenessProbe:
  httpGet:
    path: {{ .Values.probes.liveness.path }}
    port: http
  periodSeconds: {{ .Values.probes.liveness.periodSeconds }}
  failureThreshold: {{ .Values.probes.liveness.failureThreshold }}
readinessProbe:
  httpGet:
    path: {{ .Values.probes.readiness.path }}
    port: http
  periodSeconds: {{ .Values.probes.readiness.periodSeconds }}
  failureThreshold: {{ .Values.probes.readiness.failureThreshold }}
securityContext:
  {{- toYaml .Values.securityContext | nindent 2 }}
volumeMounts:
  - name: data
    mountPath: {{ .Values.config.SHUTTER_DATA_DIR }}
  - name: tmp
    mountPath: /tmp
{{- end -}}
