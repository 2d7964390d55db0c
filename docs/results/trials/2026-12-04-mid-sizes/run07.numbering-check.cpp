// run07's host check of dealt_unit (compile from a checkout with run07.numbering.diff applied):
//   g++ -std=c++17 -I. -Icommon/host -Icommon/device -DMAPPING='"steps/18_tma_store_epilogue/mapping.hpp"' -DNS=step18 \
//       run07.numbering-check.cpp common/host/gemm_types.cpp -o check18 && ./check18
// (and the same with step 22). Output, 2026-12-04: step 18 "checked 17136, bad 0, narrow shapes at the pair walk's load 4824"; step 22 "checked 14688, bad 0, narrow shapes at the pair walk's load 5040"
#include MAPPING
#include <cstdio>
#include <vector>
#include <algorithm>
using namespace NS;
int main(){
  int bad=0, checked=0, improved=0;
  for (int ci=0; ci<kConfigCount; ++ci) for (int m=64; m<=8192; m+= 232) for (int n=64; n<=8200; n+= 120) {
    Config c=kConfigs[ci]; gemm::GemmShape s{m,n,512};
    int C=persistent_clusters(s,c,132), U=units(s,c), W=U-narrow_units(s,c);
    std::vector<int> seen(U,0); std::vector<int> load(C,0);
    for (int q=0;q<C;q++) for (int u=q; u<U; u+=C) { int d=dealt_unit(u,s,c,C); if(d<0||d>=U){bad++;continue;} seen[d]++; load[q]+= d<W?2:1; }
    for (int x: seen) if (x!=1) bad++;
    int places=unit_places(s,c); int target=2*ceil_div(places,C);
    int mx=*std::max_element(load.begin(),load.end());
    checked++;
    if (mx>target) { if (checked<2000) {} }
    if (narrow_units(s,c)>0 && mx<=target) improved++;
    if (mx>target && narrow_units(s,c)>0 && bad==0) { static int shown=0; if(shown++<5) printf("cfg%d %dx%d: max load %d > pair walk %d (U %d W %d C %d)\n",ci,m,n,mx,target,U,W,C); }
  }
  printf("checked %d, bad %d, narrow shapes at the pair walk's load %d\n",checked,bad,improved);
}
