import sys,time
from pyulog import ULog
n=int(sys.argv[1])
for p in sys.argv[2:]:
    best=1e9
    for _ in range(n):
        t=time.perf_counter(); u=ULog(p); best=min(best,time.perf_counter()-t)
    print(best)
