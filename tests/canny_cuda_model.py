#!/usr/bin/env python3
# A model of kernels/canny.cu's run-based GPU path on the CPU, for checking
# its indexing and labelling logic where there is no GPU: canny_runs_kernel
# (the column bands of the vertical sums, the ring's cells, the lane masks,
# run starts, the runs touching a window, the roots handed to each run),
# canny_merge_runs_kernel (a warp's masks per tile border, the corner links,
# its unions from keys read before any of them, so possibly stale) and the
# output walks, thread by thread for every index, sequentially for the
# union-finds (any order of the unions gives the same sets; the merge's
# warps and lanes in random orders, all its keys read first or not). Asserts
# that every shared cell is written once before it is read, that every
# labels[] entry read was written this frame, and that the edges equal the
# definition's (classes from the full-frame Sobel, breadth-first
# hysteresis), on random frames (real classes) and on random class maps
# (long weak components across tiles, few strong seeds).
# Keep it in step with kernels/canny.cu.
#   canny_cuda_model.py [--seed N] [--frames N] [--maps N]
import random, sys
from collections import deque
SM={3:[1,2,1],5:[1,4,6,4,1],7:[1,6,15,20,15,6,1]}
DE={3:[-1,0,1],5:[-1,-2,0,2,1],7:[-1,-4,-5,0,5,4,1]}
kTW=kTH=32; kBX=32; kBY=8; kRows=4
NONE,WEAK,STRONG=0,1,2
kWeakBit=0x80000000; kIndex=0x7fffffff
def clamp(p,n): return 0 if p<0 else (n-1 if p>n-1 else p)
def div16(s):
    q=s>>4; r=s&15
    if r>8 or (r==8 and (q&1)): q+=1
    return q
def scale(s,K): return div16(s) if K==7 else s
def mag(dx,dy,l2): return dx*dx+dy*dy if l2 else abs(dx)+abs(dy)
def tosigned32(v): return v
def klass(m,dx,dy,nw,n,ne,w_,e,sw,s,se,low,high):
    if m<=low: return NONE
    x=abs(dx); y=abs(dy)<<15; tg22x=x*13573
    if y<tg22x: keep= m>w_ and m>=e
    else:
        tg67x=tg22x+(x<<16)
        if y>tg67x: keep= m>n and m>=s
        elif (dx^dy)<0: keep= m>ne and m>sw
        else: keep= m>nw and m>se
    if not keep: return NONE
    return STRONG if m>high else WEAK
def nms_offset(dx,dy,pitch):
    # cv_canny_nms_offset (canny_core.h): the first neighbour's offset o
    # (compared strictly), and ge: the second (at -o) compared with >=
    x=abs(dx); y=abs(dy)<<15; tg22x=x*13573
    we=int(y<tg22x); ns=int(y>tg22x+(x<<16))
    o=-1 if we else (-pitch if ns else (1-pitch if (dx^dy)<0 else -1-pitch))
    return o,we|ns
def reference(L,w,h,K,l2,low,high):
    R=K//2
    dx=[[0]*w for _ in range(h)]; dy=[[0]*w for _ in range(h)]; m=[[0]*w for _ in range(h)]
    for y in range(h):
        for x in range(w):
            sx=sy=0
            for k in range(K):
                vs=vd=0
                for j in range(K):
                    l=L[clamp(y-R+j,h)][clamp(x-R+k,w)]
                    vs+=SM[K][j]*l; vd+=DE[K][j]*l
                sx+=DE[K][k]*vs; sy+=SM[K][k]*vd
            dx[y][x]=scale(sx,K); dy[y][x]=scale(sy,K); m[y][x]=mag(dx[y][x],dy[y][x],l2)
    def M(x,y): return m[y][x] if 0<=x<w and 0<=y<h else 0
    c=[[klass(m[y][x],dx[y][x],dy[y][x],M(x-1,y-1),M(x,y-1),M(x+1,y-1),M(x-1,y),M(x+1,y),M(x-1,y+1),M(x,y+1),M(x+1,y+1),low,high) for x in range(w)] for y in range(h)]
    return c
def hyst(c,w,h):
    e=[[0]*w for _ in range(h)]; q=deque()
    for y in range(h):
        for x in range(w):
            if c[y][x]==STRONG: e[y][x]=255; q.append((x,y))
    while q:
        x,y=q.popleft()
        for yy in (y-1,y,y+1):
            for xx in (x-1,x,x+1):
                if 0<=xx<w and 0<=yy<h and c[yy][xx]!=NONE and not e[yy][xx]:
                    e[yy][xx]=255; q.append((xx,yy))
    return e
# ---- lane-mask helpers (32-bit)
M32=0xffffffff
OVERRIDE=False
def run_start(m,l): return ((m & ~(m<<1) & M32)>>l)&1
def ffs(v): return (v & -v).bit_length() if v else 0
def run_length(m,l): return ffs(~(m>>l) & 0xffffffffffffffff)-1
def clz(v): return 32-v.bit_length()
def run_first(m,l):
    gaps=~m & ((1<<l)-1) & M32
    return 32-clz(gaps) if gaps else 0
def run_end_bit(m,above):
    z=~m & above & M32
    return z & (-z) & M32
def run_window_top(end): return ((end<<1)-1) & M32
def above_of(l): return (M32<<l) & M32
def from_of(l):
    a=above_of(l); return a|(a>>1)
def runs_touching(m,win):
    hits=m&win
    if not hits: return 0
    return (m & ~(m<<1) & win & M32) | (1<<run_first(m,ffs(hits)-1))
def window(m,l):
    # a run's window [first - 1, last + 1] from its start l, as the kernels
    # make it; checked against the lengths' arithmetic
    win=from_of(l) & run_window_top(run_end_bit(m,above_of(l)))
    ln=run_length(m,l); lo=l-1 if l>0 else 0; hi=l+ln if l+ln<32 else 31
    assert win==((2<<hi)-(1<<lo)) & M32, (m,l)
    return win
def ballot(vals):
    r=0
    for l,v in enumerate(vals):
        if v: r|=1<<l
    return r
# ---- pass 1
def tile_pass(L,w,h,K,l2,low,high,bx,by,cls,labels,refc=None):
    R=K//2; RH=R+1; LW=kTW+2*RH; GW=kTW+2; GH=kTH+2
    kBands=256//LW; kNB=(GH+kBands-1)//kBands; kLumRows=kNB+K-1
    assert kBands*kNB>=GH
    vs=[[None]*LW for _ in range(GH)]; vd=[[None]*LW for _ in range(GH)]
    for tid in range(256):
        c=tid%LW; band=tid//LW
        if band<kBands:
            g0=band*kNB; gx=clamp(bx-RH+c,w)
            # the row pointer moved on while y0 + t is in 1 .. h - 1
            y0=by-RH+g0; gy=clamp(y0,h); v=[]
            for t in range(kLumRows):
                if t>0 and ((y0+t-1)&M32)<((h-1)&M32): gy+=1
                assert gy==clamp(y0+t,h)
                v.append(L[gy][gx])
            for t in range(kNB):
                if g0+t<GH:
                    assert vs[g0+t][c] is None
                    vs[g0+t][c]=sum(SM[K][j]*v[t+j] for j in range(K))
                    vd[g0+t][c]=sum(DE[K][j]*v[t+j] for j in range(K))
    smag=[[None]*GW for _ in range(GH)]
    dxr={}; dyr={}
    for ty_ in range(kBY):
        for lx in range(32):
            x=bx+lx
            for r in range(kRows):
                ly=ty_+r*kBY; y=by+ly
                dx=scale(sum(DE[K][k]*vs[ly+1][lx+1+k] for k in range(K)),K)
                dy=scale(sum(SM[K][k]*vd[ly+1][lx+1+k] for k in range(K)),K)
                dxr[(lx,ly)]=dx; dyr[(lx,ly)]=dy
                assert smag[ly+1][lx+1] is None
                smag[ly+1][lx+1]=mag(dx,dy,l2) if (x<w and y<h) else 0
    kRing=2*GW+2*kTH
    for tid in range(kRing):
        if tid<2*GW:
            ty=0 if tid<GW else GH-1; tx=tid if tid<GW else tid-GW
        else:
            q=tid-2*GW; ty=1+(q if q<kTH else q-kTH); tx=0 if q<kTH else GW-1
        gy=by-1+ty; gx=bx-1+tx
        dx=scale(sum(DE[K][k]*vs[ty][tx+k] for k in range(K)),K)
        dy=scale(sum(SM[K][k]*vd[ty][tx+k] for k in range(K)),K)
        assert smag[ty][tx] is None
        smag[ty][tx]=mag(dx,dy,l2) if (0<=gx<w and 0<=gy<h) else 0
    for row in smag: assert None not in row
    # c.
    lab={}; strong={}; cand=[None]*kTH; cmr={}
    for ly in range(kTH):
        cs=[]
        for lx in range(32):
            x=bx+lx; y=by+ly; tx=lx+1; ty=ly+1
            c=NONE
            m=smag[ty][tx]
            if x<w and y<h and m>low:
                o,ge=nms_offset(dxr[(lx,ly)],dyr[(lx,ly)],GW)
                flat=ty*GW+tx
                a=smag[(flat+o)//GW][(flat+o)%GW]; b=smag[(flat-o)//GW][(flat-o)%GW]
                if m>a and m>b-ge:
                    c=STRONG if m>high else WEAK
            if x<w and y<h:
                if refc is not None and not OVERRIDE: assert c==refc[y][x], (x,y,c,refc[y][x])
                if OVERRIDE: c=refc[y][x]
            cs.append(c)
        cm=ballot([c!=NONE for c in cs]); sm=ballot([c==STRONG for c in cs])
        cmr[ly]=cm; cand[ly]=cm
        for lx in range(32):
            if run_start(cm,lx):
                run=cm & above_of(lx) & ((run_end_bit(cm,above_of(lx))-1)&M32)
                assert run==(((1<<run_length(cm,lx))-1)<<lx)&M32
                j=ly*kTW+lx; lab[j]=j; strong[j]=int((sm&run)!=0)
    # d. (sequential union-find: order does not change the sets)
    def find(x):
        while lab[x]!=x: x=lab[x]
        return x
    def union(a,b):
        a=find(a); b=find(b)
        if a==b: return
        if a>b: a,b=b,a
        lab[b]=a
    for ly in range(1,kTH):
        cm=cmr[ly]
        for lx in range(32):
            if not run_start(cm,lx): continue
            t=runs_touching(cand[ly-1],window(cm,lx))
            while t:
                b=ffs(t)-1; t&=t-1
                bj=(ly-1)*kTW+b
                assert bj in lab   # a run start of the row above
                union(ly*kTW+lx,bj)
    root={}
    for ly in range(kTH):
        for lx in range(32):
            j=ly*kTW+lx
            if run_start(cmr[ly],lx):
                root[j]=find(j)
                if root[j]!=j and strong[j]: strong[root[j]]|=1
    for ly in range(kTH):
        cm=cmr[ly]
        for lx in range(32):
            start=run_first(cm,lx); sj=ly*kTW+start
            x=bx+lx; y=by+ly
            if x>=w or y>=h: continue
            i=y*w+x
            if not (cm>>lx)&1: cls[i]=0
            else:
                assert run_start(cm,start)
                rt=root[sj]; st=strong[rt]
                cls[i]=2 if st else 1
                if (not st) or lx==0 or lx==kTW-1 or ly==0 or ly==kTH-1 or rt==ly*kTW+lx:
                    ri=(by+rt//kTW)*w+bx+rt%kTW
                    labels[i]= ri if st else ri|kWeakBit
def gfind(labels,idx):
    k=labels[idx]; assert k is not None, idx
    while (k&kIndex)!=idx:
        idx=k&kIndex; k=labels[idx]; assert k is not None
    return k
def gunion_keys(labels,ka,kb):
    # global_union_keys: from keys of any nodes of the two trees (stale
    # ones too: the warp's keys are read before its unions)
    while True:
        if ka==kb: return
        if ka>kb: ka,kb=kb,ka
        old=labels[kb&kIndex]; assert old is not None
        labels[kb&kIndex]=min(old,ka)
        if old==kb: return
        kb=gfind(labels,old&kIndex); ka=gfind(labels,ka&kIndex)
def merge_pass(cls,labels,w,h):
    # every warp a generator: its classes and keys read up to the yield,
    # its unions after; either each warp runs whole in turn, or all read
    # before any joins (the staleest keys), the warps then in random order
    tx_n=(w+31)//32; ty_n=(h+31)//32; n=tx_n*ty_n
    ws=[merge_warp(cls,labels,w,h,tx_n,blk*4+(wy>>1),wy)
        for blk in range((n+3)//4) for wy in range(8) if blk*4+(wy>>1)<n]
    if RND.random()<0.5:
        for g in ws:
            for _ in g: pass
    else:
        for g in ws: next(g,None)
        RND.shuffle(ws)
        for g in ws:
            for _ in g: pass
def merge_warp(cls,labels,w,h,tx_n,t,wy):
            top=wy&1
            bx=(t%tx_n)*kTW; by=(t//tx_n)*kTH
            if (by==0) if top else (bx==0): return
            P=[];Q=[];OK=[]
            for lane in range(32):
                if top:
                    ok=bx+lane<w; step=1
                    p=by*w+bx+lane if ok else 0; q=p-w if ok else 0
                else:
                    ok=by+lane<h; step=w
                    p=(by+lane)*w+bx if ok else 0; q=p-1 if ok else 0
                P.append(p);Q.append(q);OK.append(ok)
            corner=by>0 and bx>0
            c1=by*w+bx-1 if top else (by-1)*w+bx-1
            c1c=corner and cls[c1]!=0
            pm=ballot([OK[l] and cls[P[l]]!=0 for l in range(32)])
            qm=ballot([OK[l] and cls[Q[l]]!=0 for l in range(32)])
            # the run starts' keys, all read before the warp's unions
            KP={}; QK={}
            for lane in range(32):
                if run_start(pm,lane):
                    assert labels[P[lane]] is not None; KP[lane]=labels[P[lane]]
                if run_start(qm,lane):
                    assert labels[Q[lane]] is not None; QK[lane]=labels[Q[lane]]
            C1K=labels[c1] if c1c and ((qm if top else pm)&1) else None
            yield
            # the lanes' unions in a random order (the GPU's interleaving)
            order=list(range(32)); RND.shuffle(order)
            for lane in order:
                p=P[lane]; q=Q[lane]
                if run_start(pm,lane):
                    tg=runs_touching(qm,window(pm,lane)); done=0xffffffff
                    while tg:
                        l=ffs(tg)-1; tg&=tg-1
                        qq=q+(l-lane)*step
                        assert OK[l] and qq==Q[l] and cls[qq]!=0
                        kq=QK[l]   # KeyError: not a run start of qm
                        if kq!=done: gunion_keys(labels,KP[lane],kq)
                        done=kq
                if lane==0 and corner:
                    c0=(by-1)*w+bx if top else by*w+bx
                    if ((qm if top else pm)&1) and c1c:
                        assert cls[c0]!=0 and c0==(Q[0] if top else P[0])
                        assert C1K is not None
                        gunion_keys(labels,QK[0] if top else KP[0],C1K)
def is_edge(labels,i,c):
    if c!=1: return c==2
    idx=i; k=labels[i]; assert k is not None
    first=k&kIndex; steps=0
    while (k&kWeakBit) and (k&kIndex)!=idx:
        idx=k&kIndex; k=labels[idx]; assert k is not None; steps+=1
    if steps>1: labels[first]=k
    return (k&kWeakBit)==0
def run(L,w,h,K,l2,low,high):
    refc=reference(L,w,h,K,l2,low,high)
    ref=hyst(refc,w,h)
    cls=[None]*(w*h); labels=[None]*(w*h)
    for by in range(0,h,32):
        for bx in range(0,w,32):
            tile_pass(L,w,h,K,l2,low,high,bx,by,cls,labels,refc)
    assert None not in cls
    merge_pass(cls,labels,w,h)
    for y in range(h):
        for x in range(w):
            i=y*w+x
            o=255 if is_edge(labels,i,cls[i]) else 0
            if o!=ref[y][x]:
                raise SystemExit("MISMATCH %dx%d K=%d l2=%d low=%d high=%d at %d,%d"%(w,h,K,l2,low,high,x,y))
    return sum(1 for y in range(h) for x in range(w) if ref[y][x]), sum(1 for v in cls if v)

def runmap(c,w,h):
    ref=hyst(c,w,h)
    cls=[None]*(w*h); labels=[None]*(w*h)
    L=[[0]*w for _ in range(h)]
    # tile_pass with the classes forced (its gradient modelled, unused)
    for by in range(0,h,32):
        for bx in range(0,w,32):
            tile_pass(L,w,h,3,False,0,0,bx,by,cls,labels,c)
    merge_pass(cls,labels,w,h)
    for y in range(h):
        for x in range(w):
            i=y*w+x
            o=255 if is_edge(labels,i,cls[i]) else 0
            assert o==ref[y][x], ("MISMATCH",w,h,x,y)
    return sum(map(sum,ref))//255

def maps(rnd,n):
    global OVERRIDE
    OVERRIDE=True
    for it in range(n):
        w=rnd.choice([1,2,31,32,33,63,64,65,97,rnd.randint(1,200)])
        h=rnd.choice([1,2,31,32,33,64,65,rnd.randint(1,200)])
        d=rnd.uniform(0.2,0.8); ps=rnd.choice([0.0,0.0005,0.003,0.02,0.2])
        kind=rnd.random()
        c=[[0]*w for _ in range(h)]
        for y in range(h):
            for x in range(w):
                if kind<0.6:
                    v=rnd.random()<d
                else:  # stripes and lines: long components
                    v=((x+y)%rnd.choice([2,3,5])==0) or ((x*3+y)%7==0 and rnd.random()<d)
                if v: c[y][x]=2 if rnd.random()<ps else 1
        if rnd.random()<0.5 and w*h>0:
            c[rnd.randrange(h)][rnd.randrange(w)]=2
        e=runmap(c,w,h)
        print("ok map %dx%d density=%.2f strong=%g edges=%d cand=%d"%(w,h,d,ps,e,sum(1 for r in c for v in r if v))); sys.stdout.flush()
    OVERRIDE=False

def frames(rnd,n):
    sizes=[(1,1),(1,2),(2,1),(3,3),(31,1),(1,33),(33,33),(32,32),(64,64),(65,63),(97,35),(35,97),(130,7),(7,130),(96,96),(67,101)]
    for it in range(n):
        w,h=sizes[it%len(sizes)] if it<len(sizes) else (rnd.randint(1,140),rnd.randint(1,140))
        K=rnd.choice([3,5,7]); l2=rnd.random()<0.5
        mode=rnd.random()
        if mode<0.5:
            L=[[rnd.randrange(256) for x in range(w)] for y in range(h)]
        else:
            import math
            fx=rnd.uniform(0.05,0.5); fy=rnd.uniform(0.05,0.5)
            L=[[max(0,min(255,int(128+100*math.sin(fx*x+fy*y*y*0.1)+rnd.randint(-20,20)))) for x in range(w)] for y in range(h)]
        base={3:100,5:1500,7:300}[K]
        a=rnd.uniform(0,base*4); b=rnd.uniform(0,base*12)
        from math import floor
        lo,hi=a,b
        if K==7: lo/=16; hi/=16
        if lo>hi: lo,hi=hi,lo
        if l2:
            lo=min(lo,32767.0); hi=min(hi,32767.0)
            if lo>0: lo*=lo
            if hi>0: hi*=hi
        lo=int(floor(lo)); hi=int(floor(hi))
        e,c=run(L,w,h,K,l2,lo,hi)
        print("ok %dx%d K=%d l2=%d low=%d high=%d edges=%d cand=%d"%(w,h,K,l2,lo,hi,e,c)); sys.stdout.flush()

if __name__=='__main__':
    import argparse
    ap=argparse.ArgumentParser()
    ap.add_argument('--seed',type=int,default=1)
    ap.add_argument('--frames',type=int,default=16)
    ap.add_argument('--maps',type=int,default=40)
    a=ap.parse_args()
    rnd=random.Random(a.seed)
    RND=random.Random(a.seed+1000)
    frames(rnd,a.frames)
    maps(rnd,a.maps)
    print("canny_cuda_model: all equal")
