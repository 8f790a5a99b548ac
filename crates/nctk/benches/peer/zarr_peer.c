/* Reads the whole float variable `temp` of an NCZarr store with netCDF-C,
 * best of 3. Usage: zarr_peer URL N. Prints "full_read SECONDS" and
 * "checksum X" (every 9973th value summed). */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    size_t n = strtoull(argv[2], NULL, 10);
    float *buf = malloc(n * sizeof(float));
    double best = 1e30;
    for (int k = 0; k < 3; k++) {
        int nc, v, e;
        double t0 = now();
        if ((e = nc_open(argv[1], NC_NOWRITE, &nc)) || (e = nc_inq_varid(nc, "temp", &v)) ||
            (e = nc_get_var_float(nc, v, buf)) || (e = nc_close(nc))) {
            fprintf(stderr, "%s\n", nc_strerror(e));
            return 1;
        }
        double dt = now() - t0;
        if (dt < best) best = dt;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i += 9973) sum += buf[i];
    printf("full_read %.6f\nchecksum %.6f\n", best, sum);
    return 0;
}
