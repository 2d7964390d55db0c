import re,sys,subprocess
def summ(path):
    out={}; f=None
    for line in open(path):
        m=re.search(r"Compiling entry function '([^']*)'",line)
        if m: f=m.group(1); continue
        m=re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads",line)
        if m and f: out.setdefault(f,{})['spill']=m.groups()
        m=re.search(r"Used (\d+) registers",line)
        if m and f: out.setdefault(f,{})['regs']=m.group(1)
    return out
o,n=summ(sys.argv[1]),summ(sys.argv[2])
for f in sorted(set(o)|set(n)):
    if o.get(f)!=n.get(f):
        name=subprocess.run(['c++filt',f],capture_output=True,text=True).stdout.strip().split('(')[0]
        print(name, 'old',o.get(f),'new',n.get(f))
print(len(o),len(n),'kernels')
