#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The mesh of mesh_net.sh: six routers in a 2 x 3 grid, a host at each
corner, ten reserved flows between the hosts that cross at the routers and
share links.

    h1 - r1 -- r2 -- r3 - h3
         |     |     |
    h2 - r4 -- r5 -- r6 - h4

Link n is 10.8.n.0/24, its left end .1 (MAC 02:00:00:08:n:01), its right
end .2 (02:00:00:08:n:02); each end's interface and port are named pN.

  mesh.py topo FILE RATE SIZE DIR   the topology (control lines to DIR/rI/tdpd.sock)
  mesh.py setup PREFIX              the namespaces and veths, as shell commands
  mesh.py conf PLAN.json I FILE     router I's [port] sections, routes from the plan
  mesh.py hosts                     per host: namespace suffix, address, gateway MAC
  mesh.py flows PLAN.json           per flow: id, sender, receiver, dport, sum of alpha
  mesh.py flood PLAN.json RATE      the best-effort rate, 90 % of the busiest link's unreserved
  mesh.py check PLAN.json DIR       the per-hop stamps and delays of every receiver's CSV
"""
import csv
import json
import re
import sys

ROUTERS = 6
# (left, right): routers r1..r6 and hosts h1..h4; hosts are right ends
LINKS = {1: ("r1", "r2"), 2: ("r2", "r3"), 3: ("r4", "r5"), 4: ("r5", "r6"), 5: ("r1", "r4"), 6: ("r2", "r5"),
         7: ("r3", "r6"), 8: ("r1", "h1"), 9: ("r4", "h2"), 10: ("r3", "h3"), 11: ("r6", "h4")}
HOSTS = {"h1": 8, "h2": 9, "h3": 10, "h4": 11}
FLOWS = [("h1", "h3"), ("h1", "h4"), ("h2", "h3"), ("h2", "h4"), ("h3", "h1"), ("h3", "h2"), ("h4", "h1"),
         ("h4", "h2"), ("h1", "h2"), ("h3", "h4")]


def mac(n, end):
    return f"02:00:00:08:{n:02x}:{end:02x}"


def addr(n, node):
    return f"10.8.{n}.{1 if LINKS[n][0] == node else 2}"


def peer(n, node):
    return LINKS[n][1] if LINKS[n][0] == node else LINKS[n][0]


def rate_bps(s):
    m = re.match(r"([0-9.]+)([kMG]?)bit/s$", s)
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]


def topo(out, rate, size, d):
    with open(out, "w") as f:
        f.write("tdp-topology 1\ntf 1ms\nk 10\nguard 100us\n")
        for h in HOSTS:
            f.write(f"host {h}\n")
        for i in range(1, ROUTERS + 1):
            f.write(f"router r{i} node-id {i} processing 300us\n")
        for n, (a, b) in LINKS.items():
            f.write(f"link {a}:p{n} {b}:p{n} rate {rate} delay 1us\n")
        for i, (s, r) in enumerate(FLOWS, 1):
            f.write(f"flow f{i} from {s} to {r} packets 1 size {size} frames {i % 10} stamp "
                    f"match dscp 46 udp-dport {7400 + i} dst 10.8.{HOSTS[r]}.0/24\n")
        for i in range(1, ROUTERS + 1):
            f.write(f"control r{i} socket {d}/r{i}/tdpd.sock\n")


def setup(prefix):
    for node in [f"r{i}" for i in range(1, ROUTERS + 1)] + list(HOSTS):
        print(f"ip netns add {prefix}{node}")
        print(f"ip -n {prefix}{node} link set lo up")
        print(f"ip netns exec {prefix}{node} sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
              "net.ipv6.conf.default.disable_ipv6=1")
    for n, (a, b) in LINKS.items():
        print(f"ip -n {prefix}{a} link add p{n} address {mac(n, 1)} type veth peer name p{n} address {mac(n, 2)} "
              f"netns {prefix}{b}")
        for node in (a, b):
            print(f"ip -n {prefix}{node} link set p{n} up")
            print(f"ip netns exec {prefix}{node} ethtool -K p{n} tx off rx off >/dev/null 2>&1 || true")
    for h, n in HOSTS.items():
        r = LINKS[n][0]
        print(f"ip -n {prefix}{h} addr add {addr(n, h)}/24 dev p{n}")
        print(f"ip -n {prefix}{h} route add 10.8.0.0/16 via {addr(n, r)}")
        print(f"ip -n {prefix}{h} neigh add {addr(n, r)} lladdr {mac(n, 1)} dev p{n} nud permanent")


def next_hops(plan):
    """router -> {subnet: next node}: the plan's routes, and for what no flow
    of the plan crosses, the fewest hops (the flood uses them too)."""
    nh = {f"r{i}": {} for i in range(1, ROUTERS + 1)}
    for r in plan["routes"]:
        nh[r["router"]][r["to"]] = r["next"]
    adj = {}
    for n, (a, b) in LINKS.items():
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    for h, n in HOSTS.items():
        net = f"10.8.{n}.0/24"
        # breadth first from the host back through routers
        dist, todo = {h: 0}, [h]
        while todo:
            x = todo.pop(0)
            for y in adj[x]:
                if y not in dist and y.startswith("r"):
                    dist[y] = dist[x] + 1
                    todo.append(y)
        for r in nh:
            if net not in nh[r]:
                nh[r][net] = min((y for y in adj[r] if y in dist), key=lambda y: (dist[y], y))
    return nh


def conf(plan_path, i, out):
    plan = json.load(open(plan_path))
    r = f"r{i}"
    nh = next_hops(plan)[r]
    with open(out, "a") as f:
        for k, n in enumerate(sorted(n for n in LINKS if r in LINKS[n])):
            p = peer(n, r)
            f.write(f"\n[port p{n}]\ndevice net_af_packet{k},iface=p{n}\naddress {addr(n, r)}/24\n")
            f.write(f"neighbour {addr(n, p)} {mac(n, 2 if LINKS[n][0] == r else 1)}\n")
            for net, via in sorted(nh.items()):
                if via == p and not via.startswith("h"):
                    f.write(f"route {net} via {addr(n, p)}\n")


def hosts():
    for h, n in HOSTS.items():
        print(h, n, addr(n, h), mac(n, 1))


def sum_alpha(f):
    return sum(f["alpha"])


def flows(plan_path):
    plan = json.load(open(plan_path))
    for i, f in enumerate(plan["flows"], 1):
        s, r = f["path"][0], f["path"][-1]
        print(i, s, r, HOSTS[r], 7400 + i, sum_alpha(f), len(f["path"]) - 2)


def flood(plan_path, rate):
    """One flood per host, to the host across the grid; the rate that puts
    90 % of the unreserved capacity on the busiest link."""
    plan = json.load(open(plan_path))
    nh = next_hops(plan)
    cycle = plan["tf_ns"] * plan["k"] / 1e9
    cap = rate_bps(rate) * (plan["tf_ns"] - plan["guard_ns"]) / plan["tf_ns"]
    reserved, load = {}, {}
    for f in plan["flows"]:
        for a, b in zip(f["path"], f["path"][1:]):
            reserved[(a, b)] = reserved.get((a, b), 0) + f["packets"] * (f["size"] + 24) * 8 / cycle
    pairs = {"h1": "h4", "h2": "h3", "h3": "h2", "h4": "h1"}
    for s, d in pairs.items():
        net = f"10.8.{HOSTS[d]}.0/24"
        x, hop = s, LINKS[HOSTS[s]][0]
        while True:
            load[(x, hop)] = load.get((x, hop), 0) + 1
            if hop == d:
                break
            x, hop = hop, nh[hop][net]
    # x per flood: 0.9 (cap - reserved) on the link where that is least per flood
    x = min(0.9 * (cap - reserved.get(e, 0)) / n for e, n in load.items())
    busiest = max(load, key=lambda e: (x * load[e] + reserved.get(e, 0)) / cap)
    # every link a flood crosses, loaded to what share of what it has left
    shares = sorted(round(100 * x * n / (cap - reserved.get(e, 0))) for e, n in load.items())
    print(f"{x / 1e6:.3f}Mbit/s", ",".join(f"{s}:{d}" for s, d in pairs.items()),
          f"{busiest[0]}->{busiest[1]}", f"{100 * (x * load[busiest]) / (cap - reserved.get(busiest, 0)):.0f}",
          len(load), f"{shares[0]}-{shares[-1]}")


def check(plan_path, d):
    """Every received probe of every flow: a stamp from each router of its
    path with the router's node id and the frame the plan gives it, and its
    delay in the last router's planned frame; per flow the spread of L less
    sum(alpha) x TF. Prints one JSON object."""
    plan = json.load(open(plan_path))
    tf = plan["tf_ns"]
    res = {"flows": [], "off_plan": 0, "off_frame": 0, "received": 0}
    by_id = {i: f for i, f in enumerate(plan["flows"], 1)}
    recs = {}
    for h in HOSTS:
        try:
            for row in csv.DictReader(open(f"{d}/{h}.csv")):
                recs.setdefault(int(row["flow"]), []).append(row)
        except FileNotFoundError:
            pass
    for i, f in by_id.items():
        ids = [int(n[1:]) for n in f["path"][1:-1]]
        want, a = [], 0
        for alpha in f["alpha"]:
            a += alpha
            want.append(a)
        shift = sum(f["alpha"]) * tf
        off, offf, rest = 0, 0, []
        for row in recs.get(i, []):
            st = [s.split(":") for s in row["stamps"].split(";")] if row["stamps"] else []
            got = [(int(s[0]), int(s[1])) for s in st]
            if got != list(zip(ids, want)):
                off += 1
            lat = int(row["latency_ns"]) - shift
            if not 0 <= lat < tf:
                offf += 1
            rest.append(lat)
        rest.sort()
        q = (lambda p: rest[min(len(rest) - 1, int(p * len(rest)))] if rest else 0)
        res["flows"].append({"flow": i, "name": f["name"], "path": f["path"], "routers": len(ids),
                             "sum_alpha": sum(f["alpha"]), "received": len(rest), "off_plan": off,
                             "off_frame": offf, "rest_p50_ns": q(0.5), "rest_p99_ns": q(0.99),
                             "spread_ns": q(0.99) - q(0.01)})
        res["off_plan"] += off
        res["off_frame"] += offf
        res["received"] += len(rest)
    print(json.dumps(res))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "topo":
        topo(*sys.argv[2:6])
    elif cmd == "setup":
        setup(sys.argv[2])
    elif cmd == "conf":
        conf(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif cmd == "hosts":
        hosts()
    elif cmd == "flows":
        flows(sys.argv[2])
    elif cmd == "flood":
        flood(sys.argv[2], sys.argv[3])
    elif cmd == "check":
        check(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
