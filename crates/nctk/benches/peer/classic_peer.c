/* netCDF-C side of benches/classic_io.rs.
 * Usage: classic_peer IN.nc OUT.nc
 * Reads variable "temp" whole (best of 3), reads the time series
 * temp[:, 360, 720] (mean of 50), then writes the field to OUT.nc as CDF-5 in
 * the default fill mode, timing create..close. Prints "name seconds" lines. */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(x) do { int s_ = (x); if (s_) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, nc_strerror(s_)); exit(1); } } while (0)

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    int nc, v, dims[3];
    size_t len[3];
    CHECK(nc_open(argv[1], NC_NOWRITE, &nc));
    CHECK(nc_inq_varid(nc, "temp", &v));
    CHECK(nc_inq_vardimid(nc, v, dims));
    for (int i = 0; i < 3; i++) CHECK(nc_inq_dimlen(nc, dims[i], &len[i]));
    size_t n = len[0] * len[1] * len[2];
    float *buf = malloc(n * sizeof(float));
    double best = 1e9;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        CHECK(nc_get_var_float(nc, v, buf));
        double t = now() - t0;
        if (t < best) best = t;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i += 9973) sum += buf[i];
    printf("full_read %.6f\n", best);
    printf("checksum %.3f\n", sum);
    float *ts = malloc(len[0] * sizeof(float));
    size_t start[3] = {0, 360, 720}, count[3] = {len[0], 1, 1};
    double t0 = now();
    for (int r = 0; r < 50; r++) CHECK(nc_get_vara_float(nc, v, start, count, ts));
    printf("time_series %.6f\n", (now() - t0) / 50);
    CHECK(nc_close(nc));

    t0 = now();
    int out, d[3], w;
    CHECK(nc_create(argv[2], NC_CLOBBER | NC_64BIT_DATA, &out));
    CHECK(nc_def_dim(out, "time", len[0], &d[0]));
    CHECK(nc_def_dim(out, "lat", len[1], &d[1]));
    CHECK(nc_def_dim(out, "lon", len[2], &d[2]));
    CHECK(nc_def_var(out, "temp", NC_FLOAT, 3, d, &w));
    CHECK(nc_enddef(out));
    CHECK(nc_put_var_float(out, w, buf));
    CHECK(nc_close(out));
    printf("write %.6f\n", now() - t0);
    free(buf);
    free(ts);
    return 0;
}
