// Admin REST for groups and their members (/uflow/v2/groups; the workspace comes from the token).
import { Router } from "express";
import { z } from "zod";
import { addGroupMemberSchema, createGroupSchema, listGroupMembersQuery, listGroupsQuery, type GroupService } from "../modules/rbac";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

const groupParams = z.object({ group_id: z.string().uuid("must be a UUID") });
const memberParams = groupParams.extend({ user_id: z.string().uuid("must be a UUID") });

export function groupsRouter(groups: GroupService): Router {
  const r = Router();
  r.post("/uflow/v2/groups", async (req, res) => {
    res.status(201).json(await groups.create(actorOf(res), parseWith(createGroupSchema, req.body)));
  });
  r.get("/uflow/v2/groups", async (req, res) => {
    res.json(await groups.list(actorOf(res), parseWith(listGroupsQuery, req.query, "query")));
  });
  r.get("/uflow/v2/groups/:group_id", async (req, res) => {
    res.json(await groups.get(actorOf(res), parseWith(groupParams, req.params).group_id));
  });
  r.delete("/uflow/v2/groups/:group_id", async (req, res) => {
    await groups.remove(actorOf(res), parseWith(groupParams, req.params).group_id);
    res.status(204).end();
  });
  r.get("/uflow/v2/groups/:group_id/members", async (req, res) => {
    const { group_id } = parseWith(groupParams, req.params);
    res.json(await groups.listMembers(actorOf(res), group_id, parseWith(listGroupMembersQuery, req.query, "query")));
  });
  // Idempotent: 201 when added, 200 when the user already was a member.
  r.post("/uflow/v2/groups/:group_id/members", async (req, res) => {
    const { group_id } = parseWith(groupParams, req.params);
    const { user_id } = parseWith(addGroupMemberSchema, req.body);
    const { member, created } = await groups.addMember(actorOf(res), group_id, user_id);
    res.status(created ? 201 : 200).json(member);
  });
  r.delete("/uflow/v2/groups/:group_id/members/:user_id", async (req, res) => {
    const { group_id, user_id } = parseWith(memberParams, req.params);
    await groups.removeMember(actorOf(res), group_id, user_id);
    res.status(204).end();
  });
  return r;
}
