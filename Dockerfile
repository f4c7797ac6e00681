# Quire in a container: a static binary on a small base, run as a non-root user, data in /data.
#
#   docker build --build-arg VERSION=v1.4.0 -t quire .
#   docker run -p 8080:8080 -v quire-data:/data quire
#
# With no --database-url the store is SQLite in the /data volume (keep it on a local disk); set
# QUIRE_DATABASE_URL for PostgreSQL and QUIRE_S3_ENDPOINT/QUIRE_S3_BUCKET for an S3 bucket of
# uploads (compose.yaml wires all three together).
FROM golang:1.26.8-alpine3.22 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=""
RUN VERSION="$VERSION" scripts/build.sh /out/quire && mkdir /out/data

FROM alpine:3.22
# wget (busybox) answers the health check; ca-certificates let it reach https S3 and embedding services.
RUN apk add --no-cache ca-certificates && adduser -D -H -u 10001 quire
COPY --from=build /out/quire /usr/local/bin/quire
COPY --from=build --chown=10001:10001 /out/data /data
USER 10001:10001
ENV QUIRE_ADDR=0.0.0.0:8080 QUIRE_DATA=/data
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD wget -q -O /dev/null http://127.0.0.1:8080/healthz || exit 1
ENTRYPOINT ["quire"]
CMD ["serve"]
