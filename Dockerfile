# Multi-stage build of the roleout agent onto an empty, non-root image.
FROM golang:1.26-bookworm AS build
ARG VERSION=dev
ARG COMMIT=unknown
WORKDIR /src
COPY go.mod go.sum ./
COPY third_party ./third_party
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
      -o /out/roleout ./cmd/roleout \
 && CGO_ENABLED=0 go run ./hack/kubepredict -out /out/predictors v1.36.3 \
 && mkdir -p /out/cache && chown 65532:65532 /out/cache \
 && echo 'roleout:x:65532:65532:roleout:/nonexistent:/sbin/nologin' > /out/passwd

FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/passwd /etc/passwd
COPY --from=build --chown=65532:65532 /out/cache /var/cache/roleout
COPY --from=build /out/roleout /roleout
# The prediction helpers of other Kubernetes minors, where roleout looks: beside itself.
COPY --from=build /out/predictors /predictors
USER 65532:65532
ENTRYPOINT ["/roleout"]
CMD ["run", "--config", "/etc/roleout/agent.yaml"]
