{#- courselab: nbgrader's page, with its values passed as data (page_values.j2) instead of inline script text, and the
    link that opens the new-assignment form bound by a script rather than an onclick attribute. -#}
{%- extends "nbgrader/manage_assignments.tpl" -%}
{%- from "page_values.j2" import list_page_head -%}
{%- block head -%}
{{ list_page_head(base_url, "manage_assignments.js", {"url_prefix": url_prefix, "default_timezone": default_timezone}) }}
{%- endblock -%}
{%- block table_footer -%}
<tr>
  <td colspan="11">
    <span class="glyphicon glyphicon-plus" aria-hidden="true"></span>
    <a href="#" id="courselab-new-assignment">Add new assignment...</a>
    <script>document.getElementById("courselab-new-assignment").addEventListener("click", function (event) { event.preventDefault(); createAssignmentModal(); });</script>
  </td>
</tr>
{%- endblock -%}
