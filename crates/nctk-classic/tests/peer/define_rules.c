/* Runs a sequence of netCDF-C define calls on a new classic file and prints
 * "ok", or "refused <step> <nc_strerror>" for the first call that fails.
 *
 * usage: define_rules OUT 1|2|5 fill|nofill STEP...
 * steps: dim:NAME:LEN (LEN 0 = unlimited), var:NAME:TYPE[:DIMID...],
 *        att:VARID:NAME:TYPE:COUNT (VARID -1 = global; values are 0),
 *        enddef
 * Names may not contain ':'. */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int refuse(int step, int status) {
    printf("refused %d %s\n", step, nc_strerror(status));
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    int mode = NC_CLOBBER;
    if (!strcmp(argv[2], "2")) mode |= NC_64BIT_OFFSET;
    if (!strcmp(argv[2], "5")) mode |= NC_64BIT_DATA;
    int nc, s;
    if ((s = nc_create(argv[1], mode, &nc))) return refuse(-1, s);
    int old;
    nc_set_fill(nc, strcmp(argv[3], "fill") ? NC_NOFILL : NC_FILL, &old);
    static char zeros[64];
    for (int i = 4; i < argc; i++) {
        char *f[16];
        int n = 0;
        char *save = NULL;
        for (char *t = strtok_r(argv[i], ":", &save); t && n < 16; t = strtok_r(NULL, ":", &save))
            f[n++] = t;
        int id;
        if (n >= 3 && !strcmp(f[0], "dim")) {
            long long len = atoll(f[2]);
            s = nc_def_dim(nc, f[1], len == 0 ? NC_UNLIMITED : (size_t)len, &id);
        } else if (n >= 3 && !strcmp(f[0], "var")) {
            int dims[13];
            for (int k = 3; k < n; k++) dims[k - 3] = atoi(f[k]);
            s = nc_def_var(nc, f[1], atoi(f[2]), n - 3, dims, &id);
        } else if (n == 5 && !strcmp(f[0], "att")) {
            int count = atoi(f[4]);
            if (count > 8) count = 8;
            s = nc_put_att(nc, atoi(f[1]), f[2], atoi(f[3]), count, zeros);
        } else if (n == 1 && !strcmp(f[0], "enddef")) {
            s = nc_enddef(nc);
        } else {
            return 2;
        }
        if (s) return refuse(i - 4, s);
    }
    s = nc_close(nc);
    if (s) return refuse(argc - 4, s);
    printf("ok\n");
    return 0;
}
